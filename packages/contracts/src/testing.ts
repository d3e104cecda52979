import type { ProfileSnapshot } from './profile-snapshot';

/**
 * A complete, valid profile snapshot for tests (a short closed-loop synthetic run, no schedule, no
 * sweep): a test names only the fields it is about in `overrides`, so a field added to the snapshot
 * is added here once.
 */
export function sampleSnapshot(overrides: Partial<ProfileSnapshot> = {}): ProfileSnapshot {
  return {
    id: '7f0c1c3e-0000-4000-8000-000000000001',
    name: 'sample',
    endpointId: '7f0c1c3e-0000-4000-8000-000000000002',
    workload: { kind: 'synthetic', inputTokens: 16, outputTokens: 8 },
    load: { kind: 'closed', concurrency: 2 },
    requestCount: 6,
    durationS: null,
    warmupRequests: 0,
    seed: 7,
    timeoutMs: 20_000,
    stallTimeoutMs: 2_000,
    forceOutputLength: true,
    transport: 'http1',
    tokenizer: null,
    slo: {},
    scheduleCron: null,
    scheduleIntervalS: null,
    scheduleJitterS: 0,
    sweep: null,
    ...overrides,
  };
}

/** A capacity search under MLPerf's llama3.1-8b server limits, as a client sends it (defaults left out). */
export const SAMPLE_CAPACITY_SEARCH = {
  kind: 'capacity',
  dimension: 'rate',
  slo: { preset: 'mlperf-llama3.1-8b-server' },
  lowest: 1,
  highest: 16,
} as const;
