import { startSimulator, type RunningSimulator } from '@teapot/simulator';
import { runBenchmark } from './run';
import type { PercentileSummary, RunOptions, RunResult } from './types';
import { loadTrace } from './trace';

jest.setTimeout(60_000);

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator({ seed: 3 });
});
afterAll(() => sim.close());

const REQUESTS = 16;
/** 16 requests 4 ms apart, each asking 24 tokens: they arrive far faster than one stream answers them. */
const TRACE = Array.from(
  { length: REQUESTS },
  (_, i) => JSON.stringify({ timestamp_ms: 1_000 + 4 * i, input_tokens: 20 + i, output_tokens: 24 }) + '\n',
).join('');

function replay(maxConcurrency: number, busyPoll?: boolean): Promise<RunResult> {
  const options: RunOptions = {
    target: { baseUrl: sim.baseUrl, apiKind: 'completions', model: sim.deployment.model.name },
    workload: loadTrace(TRACE, { sha256: 'f'.repeat(64) }),
    load: { kind: 'open', ratePerS: 1, arrival: 'poisson', maxConcurrency, busyPoll },
    // no requests or durationS: a trace ends with its last line
    forceOutputLength: true,
    seed: 1,
  };
  return runBenchmark(options);
}

function p50(summary: PercentileSummary | null | undefined): number {
  expect(summary).toBeTruthy();
  return summary!.p50;
}

describe('trace replay against the simulator', () => {
  it('sends each line with its lengths at its time, and reports what was sent', async () => {
    const result = await replay(REQUESTS);
    expect(result.summary.requests.succeeded).toBe(REQUESTS);
    const records = [...result.requests].sort((a, b) => a.scheduledUs - b.scheduledUs);
    // the server counted the prompt the trace asked for, and answered its output length
    expect(records.map((r) => r.promptTokens)).toEqual(records.map((_, i) => 20 + i));
    expect(records.every((r) => r.outputTokens === 24)).toBe(true);
    const gapsUs = records.slice(1).map((r, i) => r.scheduledUs - records[i].scheduledUs);
    for (const gap of gapsUs) expect(Math.abs(gap - 4_000)).toBeLessThanOrEqual(1);
    expect(result.summary.workload?.trace).toEqual({
      sha256: 'f'.repeat(64),
      format: 'teapot',
      lines: REQUESTS,
      spanS: 0.06,
      speed: 1,
    });
    expect(result.summary.sendLateness?.sent).toBe(REQUESTS);
  });

  it('busy-polling, sends every line on its schedule and still counts the wait for a slot', async () => {
    const free = (await replay(REQUESTS, true)).summary;
    expect(free.requests.succeeded).toBe(REQUESTS);
    expect(free.sendLateness!.p50Ms).toBeLessThan(p50(free.ttftMs) / 4);
    // one slot: the loop polls for it rather than sleeping, and each wait still shows as lateness
    const one = (await replay(1, true)).summary;
    expect(one.requests.succeeded).toBe(REQUESTS);
    expect(one.sendLateness!.late).toBeGreaterThanOrEqual(REQUESTS - 2);
    expect(p50(one.ttftFromScheduleMs)).toBeGreaterThan(4 * p50(one.ttftMs));
  });

  it('measures from the schedule: a client bottleneck shows in TTFT from the schedule, not from the send', async () => {
    const bottleneck = await replay(1);
    const free = await replay(REQUESTS);
    const one = bottleneck.summary;
    const all = free.summary;
    // one slot: each request waits for every one before it, which only the schedule-based TTFT counts
    expect(p50(one.ttftFromScheduleMs)).toBeGreaterThan(4 * p50(one.ttftMs));
    expect(one.sendLateness!.late).toBeGreaterThanOrEqual(REQUESTS - 2);
    // its E2E (one request alone) bounds how late the sends got: each waited for those before it
    expect(one.sendLateness!.maxMs).toBeGreaterThan((REQUESTS - 2) * p50(one.e2eMs) * 0.8);
    // a slot for every request: sending on time, the two figures agree to within the lateness
    const lateness = all.sendLateness!;
    expect(lateness.p50Ms).toBeLessThan(p50(all.ttftMs) / 4);
    const shift = p50(all.ttftFromScheduleMs) - p50(all.ttftMs);
    expect(shift).toBeLessThanOrEqual(lateness.maxMs + 0.001);
    expect(shift).toBeGreaterThanOrEqual(-0.2);
    expect(p50(all.ttftFromScheduleMs)).toBeLessThan(1.25 * p50(all.ttftMs));
    expect(p50(all.e2eFromScheduleMs)).toBeLessThan(1.25 * p50(all.e2eMs));
  });

  it('closed-loop runs have no schedule figures', async () => {
    const result = await runBenchmark({
      target: { baseUrl: sim.baseUrl, apiKind: 'completions', model: sim.deployment.model.name },
      workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 4 },
      load: { kind: 'closed', concurrency: 1 },
      requests: 2,
    });
    expect(result.summary.sendLateness).toBeUndefined();
    expect(result.summary.ttftFromScheduleMs).toBeUndefined();
  });
});
