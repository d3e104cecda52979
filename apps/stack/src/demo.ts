import { isDeepStrictEqual } from 'node:util';
import type { TeapotApiClient } from './api-client';
import type { StackOptions } from './args';

/** The model and GPU preset both simulators serve; only the weight precision differs. */
export const DEMO_MODEL = 'llama-8b';
export const DEMO_GPU = 'h100-sxm';

export type DemoQuant = 'fp16' | 'fp8';

/** The demo's endpoints: FP16 on the first simulator port, FP8 on the second. */
export const DEMO_QUANTS: readonly DemoQuant[] = ['fp16', 'fp8'];

export interface DemoEndpoint {
  quant: DemoQuant;
  name: string;
  /** "http://127.0.0.1:PORT/v1" of its simulator. */
  baseUrl: string;
}

export interface RegisteredEndpoint extends DemoEndpoint {
  endpointId: string;
  profileId: string;
  configVersion: number;
  /** What registration did, for the progress line. */
  actions: string[];
}

export function demoEndpointName(quant: DemoQuant): string {
  return `${DEMO_MODEL}-h100-${quant}`;
}

/** The demo's endpoints on this launch's simulator ports. */
export function demoEndpoints(options: StackOptions): DemoEndpoint[] {
  return DEMO_QUANTS.map((quant, i) => ({
    quant,
    name: demoEndpointName(quant),
    baseUrl: `http://127.0.0.1:${options.simulatorPorts[i]}/v1`,
  }));
}

/** The arguments of packages/simulator/dist/main.js for one demo endpoint. */
export function simulatorArgs(quant: DemoQuant, port: number): string[] {
  return ['--port', String(port), '--gpu', DEMO_GPU, '--model', DEMO_MODEL, '--quant', quant];
}

/** An assumed on-demand H100 price: the cost per million tokens is computed from it, never guessed. */
export const DEMO_USD_PER_GPU_HOUR = 3;

/** What serves the endpoint, as an inference engineer would record it. */
export function servingConfigOf(quant: DemoQuant): Record<string, unknown> {
  return {
    engine: 'teapot-sim',
    engineVersion: '0.1.0',
    gpuModel: 'H100 SXM',
    gpuCount: 1,
    weightQuant: quant,
    // The simulator's FP8 is W8A8 (FP8 tensor cores); its KV cache stays bf16.
    activationQuant: quant,
    kvCacheQuant: 'bf16',
    tensorParallel: 1,
    pipelineParallel: 1,
    maxNumSeqs: 256,
    chunkedPrefill: false,
    prefixCaching: false,
    usdPerGpuHour: DEMO_USD_PER_GPU_HOUR,
    extra: { simulator: { gpu: DEMO_GPU, model: DEMO_MODEL, quant } },
  };
}

export const DEMO_PROFILE_NAME = 'chat-256-in-128-out-c8';
export const DEMO_REQUESTS = 32;
export const DEMO_CONCURRENCY = 8;

/** A short closed-loop benchmark: a few seconds per run. */
export function profileOf(intervalS: number): Record<string, unknown> {
  return {
    name: DEMO_PROFILE_NAME,
    workload: { kind: 'synthetic', inputTokens: 256, outputTokens: 128 },
    load: { kind: 'closed', concurrency: DEMO_CONCURRENCY },
    requestCount: DEMO_REQUESTS,
    durationS: null,
    warmupRequests: 0,
    seed: 1,
    timeoutMs: 30_000,
    stallTimeoutMs: 5_000,
    forceOutputLength: true,
    scheduleCron: null,
    scheduleIntervalS: intervalS,
    scheduleJitterS: 0,
    enabled: true,
  };
}

/**
 * Registers the endpoint, its serving configuration and its profile through the REST API, reusing
 * what exists under the same names: a changed URL or profile is patched, a changed configuration
 * becomes a new version (history is never rewritten), an archived endpoint is restored.
 */
export async function registerDemoEndpoint(
  api: TeapotApiClient,
  demo: DemoEndpoint,
  intervalS: number,
): Promise<RegisteredEndpoint> {
  const actions: string[] = [];
  // The simulator serves vLLM's Prometheus metrics beside its API: every run scrapes them, so a
  // regression comes with the server's own account of it (preemptions, KV-cache usage, ...).
  const wanted = {
    baseUrl: demo.baseUrl,
    apiKind: 'chat',
    model: DEMO_MODEL,
    metricsUrl: demo.baseUrl.replace(/\/v1$/, '/metrics'),
  };
  const config = servingConfigOf(demo.quant);
  let endpoint = await api.findEndpoint(demo.name);
  let configVersion: number;
  if (!endpoint) {
    endpoint = await api.createEndpoint({ name: demo.name, ...wanted, tags: ['teapot-stack'], config });
    actions.push('created');
    configVersion = 1;
  } else {
    const patch: Record<string, unknown> = differences(wanted, endpoint);
    if (endpoint.archivedAt) patch.archived = false;
    if (Object.keys(patch).length > 0) {
      endpoint = await api.updateEndpoint(endpoint.id, patch);
      actions.push(`updated ${Object.keys(patch).join(', ')}`);
    } else {
      actions.push('reused');
    }
    const [live] = await api.servingConfigs(endpoint.id);
    if (live && Object.keys(differences(config, live)).length === 0) {
      configVersion = live.version;
    } else {
      configVersion = (await api.addServingConfig(endpoint.id, { ...config, note: 'teapot stack demo' }))
        .version;
      actions.push(`serving configuration v${configVersion}`);
    }
  }

  const profileBody = profileOf(intervalS);
  let profile = await api.findProfile(endpoint.id, DEMO_PROFILE_NAME);
  if (!profile) {
    profile = await api.createProfile({ ...profileBody, endpointId: endpoint.id });
    actions.push('profile created');
  } else {
    const patch = differences(profileBody, profile);
    if (Object.keys(patch).length > 0) {
      profile = await api.updateProfile(profile.id, patch);
      actions.push('profile updated');
    }
  }
  return { ...demo, endpointId: endpoint.id, profileId: profile.id, configVersion, actions };
}

/** The fields of `wanted` whose value `actual` does not have. */
function differences(wanted: Record<string, unknown>, actual: object): Record<string, unknown> {
  const current = actual as Record<string, unknown>;
  const changed: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(wanted)) {
    if (!isDeepStrictEqual(current[field] ?? null, value)) changed[field] = value;
  }
  return changed;
}

/**
 * Redeploys a simulated endpoint (POST /v1/_teapot/deployment): it serves the new configuration from
 * its next engine step, as a real endpoint would after a rollout. `baseUrl` is "http://HOST:PORT/v1".
 */
export async function redeploySimulator(
  baseUrl: string,
  change: { quant?: DemoQuant; chunkedPrefill?: boolean; kvCacheTokens?: number },
): Promise<void> {
  const response = await fetch(`${baseUrl}/_teapot/deployment`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(change),
    signal: AbortSignal.timeout(5_000),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`the simulator at ${baseUrl} refused ${JSON.stringify(change)}: ${text}`);
}
