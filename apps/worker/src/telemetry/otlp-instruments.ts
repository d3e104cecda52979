import type { Attributes } from '@opentelemetry/api';
import type { LatencyMetric } from '../metrics/run-histograms';
import type { RunGroup } from './run-figures';

/**
 * The histograms of a run's samples, named after the OpenTelemetry GenAI conventions where one applies
 * (ITL has none), in seconds as they ask, with bounds that resolve 3-7 ms per token (LATENCY_BUCKETS_S).
 */
export const RUN_HISTOGRAMS: ReadonlyArray<{ name: string; metric: LatencyMetric; description: string }> = [
  {
    name: 'gen_ai.server.time_to_first_token',
    metric: 'ttft',
    description: 'Time to first token of successful requests, measured by teapot as a client.',
  },
  {
    name: 'gen_ai.server.time_per_output_token',
    metric: 'tpot',
    description: 'Time per output token after the first (TPOT), one sample per successful request.',
  },
  { name: 'gen_ai.server.request.duration', metric: 'e2e', description: 'Request start to the last token.' },
  {
    name: 'teapot.run.inter_token_latency',
    metric: 'itl',
    description: 'Inter-token latency (ITL): one sample per output token after the first token chunk.',
  },
];

export const OUTPUT_TOKENS_PER_SECOND = 'teapot.run.output_tokens_per_second';
export const CLIENT_SATURATED = 'teapot.run.client_saturated';
export const RUN_REQUESTS = 'teapot.run.requests';
export const RUN_FINISHED_EVENT = 'teapot.run.finished';
export const DEPLOYMENT_VERDICT_EVENT = 'teapot.deployment.verdict';

/**
 * The attributes of every figure of a run: the GenAI conventions' operation, provider, model and
 * server, then teapot's endpoint, profile and configuration. The provider is the configuration's
 * engine when it names one (a custom value, which the conventions allow), else `openai`: the API teapot
 * speaks to every endpoint.
 */
export function groupAttributes(group: RunGroup): Attributes {
  const url = new URL(group.baseUrl);
  return {
    'gen_ai.operation.name': group.apiKind === 'chat' ? 'chat' : 'text_completion',
    'gen_ai.provider.name': group.engine ? group.engine.toLowerCase() : 'openai',
    'gen_ai.request.model': group.model,
    'server.address': url.hostname,
    'server.port': Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
    'teapot.endpoint.id': group.endpointId,
    'teapot.endpoint.name': group.endpoint,
    'teapot.profile.id': group.profileId,
    'teapot.profile.name': group.profile,
    'teapot.config.version': group.configVersion,
  };
}
