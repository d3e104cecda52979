import type { LookupFunction } from 'node:net';
import { ClientConfigError } from '@teapot/measure';
import { guardedLookup, isUrlPolicyRefusal, type HostResolver, type UrlPolicy } from '@teapot/webhooks';

type LookupCallback = Parameters<LookupFunction>[2];

/**
 * How a run resolves its endpoint's host at every connection: the URL policy judges each address the
 * name resolves to (169.254.169.254.nip.io is the metadata address, whatever its name says). A refusal
 * is a ClientConfigError, so the measurement counts it as `client_config` (the configuration is at
 * fault), not as the endpoint being unreachable, and does not back off as if it were down.
 */
export function endpointLookup(policy: UrlPolicy, resolve: HostResolver): LookupFunction {
  const guarded = guardedLookup(policy, resolve);
  return ((hostname: string, options: object, callback: LookupCallback) =>
    guarded(hostname, options, (error, address, family) => {
      const refusal =
        error !== null && isUrlPolicyRefusal(error) ? new ClientConfigError(error.message) : error;
      (callback as (e: Error | null, a: typeof address, f?: number) => void)(refusal, address, family);
    })) as LookupFunction;
}
