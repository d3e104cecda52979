import {
  InvalidSnapshotError,
  parseProfileSnapshot,
  PROFILE_SNAPSHOT_FIELDS,
  snapshotOf,
} from './profile-snapshot';
import { SAMPLE_CAPACITY_SEARCH, sampleSnapshot } from './testing';

const profileRow = {
  id: '7f0c1c3e-0000-4000-8000-000000000001',
  name: 'nightly',
  endpointId: '7f0c1c3e-0000-4000-8000-000000000002',
  workload: { kind: 'synthetic', inputTokens: 128, outputTokens: 64 },
  load: { kind: 'open', ratePerS: 2, arrival: 'poisson', maxConcurrency: 8 },
  requestCount: 20,
  durationS: null,
  warmupRequests: 2,
  seed: 7,
  timeoutMs: 120_000,
  stallTimeoutMs: 30_000,
  forceOutputLength: true,
  transport: 'undici',
  tokenizer: 'llama-3.1-8b/tokenizer.json',
  slo: { ttftMs: 500 },
  scheduleCron: null,
  scheduleIntervalS: 3600,
  scheduleJitterS: 0,
  sweep: null,
  enabled: false,
  createdAt: new Date('2026-01-01T00:00:00Z'),
  updatedAt: new Date('2026-01-02T00:00:00Z'),
};

describe('snapshotOf', () => {
  it('keeps every snapshot field and none of the row bookkeeping', () => {
    const snapshot = snapshotOf(profileRow);
    expect(Object.keys(snapshot).sort()).toEqual([...PROFILE_SNAPSHOT_FIELDS].sort());
    expect(snapshot).not.toHaveProperty('enabled');
    expect(snapshot).not.toHaveProperty('updatedAt');
    expect(snapshot.load).toEqual(profileRow.load);
  });

  it('round-trips through JSON (the column) and parses back to the same values', () => {
    const stored: unknown = JSON.parse(JSON.stringify(snapshotOf(profileRow)));
    expect(parseProfileSnapshot(stored)).toEqual(snapshotOf(profileRow));
  });
});

describe('parseProfileSnapshot', () => {
  const stored = () => JSON.parse(JSON.stringify(snapshotOf(profileRow))) as Record<string, unknown>;

  it('reads snapshots queued before profiles had a transport as the default transport', () => {
    const { transport: _dropped, ...old } = stored();
    expect(parseProfileSnapshot(old).transport).toBe('http1');
    expect(parseProfileSnapshot(stored()).transport).toBe('undici');
  });

  it('reads snapshots written with extra fields (the API once stored the whole row)', () => {
    const old = { ...stored(), enabled: true, createdAt: '2026-01-01T00:00:00.000Z' };
    expect(parseProfileSnapshot(old)).not.toHaveProperty('enabled');
  });

  it.each([
    ['workload.kind', { workload: { kind: 'replay' } }],
    ['load.concurrency', { load: { kind: 'closed', concurrency: 0 } }],
    ['load.arrival', { load: { kind: 'open', ratePerS: 1, arrival: 'bursty' } }],
    ['stallTimeoutMs', { stallTimeoutMs: -1 }],
    ['timeoutMs', { timeoutMs: undefined }],
    ['seed', { seed: 1.5 }],
    ['slo.itlMs', { slo: { itlMs: 'fast' } }],
    ['scheduleJitterS', { scheduleJitterS: null }],
    ['requestCount', { requestCount: null, durationS: null }],
    ['sweep.points.1', { sweep: { kind: 'points', dimension: 'rate', points: [2, 1] } }],
  ])('names %s when it is wrong', (field, change) => {
    const bad = { ...stored(), ...change };
    expect(() => parseProfileSnapshot(bad)).toThrow(InvalidSnapshotError);
    expect(() => parseProfileSnapshot(bad)).toThrow(`profile snapshot: ${field}`);
  });

  it('reads snapshots queued before profiles could sweep as single-load', () => {
    const { sweep: _dropped, ...old } = stored();
    expect(parseProfileSnapshot(old).sweep).toBeNull();
  });

  it("keeps a sweep profile's spec with its defaults filled in", () => {
    expect(parseProfileSnapshot({ ...stored(), sweep: SAMPLE_CAPACITY_SEARCH }).sweep).toMatchObject({
      kind: 'capacity',
      lowest: 1,
      highest: 16,
      tolerance: 0.05,
      maxPoints: 8,
      slo: { preset: 'mlperf-llama3.1-8b-server', targets: [{ metric: 'ttft' }, { metric: 'tpot' }] },
    });
  });

  it('refuses a missing snapshot', () => {
    expect(() => parseProfileSnapshot(null)).toThrow('the run has no profile snapshot');
    expect(() => parseProfileSnapshot([])).toThrow(InvalidSnapshotError);
  });

  it('accepts a duration-bounded dataset profile', () => {
    const snapshot = parseProfileSnapshot({
      ...stored(),
      workload: { kind: 'dataset', prompts: [{ prompt: 'hi', outputTokens: 4 }] },
      requestCount: null,
      durationS: 60,
    });
    expect(snapshot.durationS).toBe(60);
  });

  it.each([
    {
      kind: 'multi-turn',
      turns: 3,
      inputTokens: 16,
      outputTokens: 8,
      thinkTime: { distribution: 'constant', meanMs: 0 },
    },
    {
      kind: 'shared-prefix',
      prefixes: 2,
      prefixTokens: 64,
      requestsPerPrefix: 4,
      suffixTokens: 8,
      outputTokens: 4,
    },
    { kind: 'dataset-asset', sha256: 'ab'.repeat(32), format: 'openai', sample: 5, actualAnswers: true },
    { kind: 'trace-asset', sha256: 'cd'.repeat(32), speed: 2 },
  ])('keeps a $kind workload as stored', (workload) => {
    expect(parseProfileSnapshot({ ...stored(), workload }).workload).toEqual(workload);
  });

  it('refuses a dataset-asset workload without a hash, naming the field', () => {
    expect(() =>
      parseProfileSnapshot({
        ...stored(),
        workload: { kind: 'dataset-asset', sha256: 'x', format: 'sharegpt' },
      }),
    ).toThrow(/workload\.sha256/);
  });

  it('refuses a trace-asset workload with a speed of 0, naming the field', () => {
    expect(() =>
      parseProfileSnapshot({
        ...stored(),
        workload: { kind: 'trace-asset', sha256: 'cd'.repeat(32), speed: 0 },
      }),
    ).toThrow(/workload\.speed/);
  });
});

describe('a snapshot queued before profiles had a tokenizer', () => {
  it('reads as one without', () => {
    const { tokenizer: _, ...older } = sampleSnapshot({ tokenizer: 'a/tokenizer.json' });
    expect(parseProfileSnapshot(older).tokenizer).toBeNull();
  });
});

describe("a snapshot's tokenizer", () => {
  it('is a path or an upload by SHA-256, and nothing else', () => {
    const sha256 = 'ab'.repeat(32);
    expect(parseProfileSnapshot(sampleSnapshot({ tokenizer: { sha256 } })).tokenizer).toEqual({ sha256 });
    expect(parseProfileSnapshot(sampleSnapshot({ tokenizer: 'a/tokenizer.json' })).tokenizer).toBe(
      'a/tokenizer.json',
    );
    for (const tokenizer of [{ sha256: 'xyz' }, { sha256, path: 'a' }, 7, ''])
      expect(() => parseProfileSnapshot({ ...sampleSnapshot(), tokenizer })).toThrow(/tokenizer/);
  });
});
