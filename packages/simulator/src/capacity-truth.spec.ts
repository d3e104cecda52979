import type { CapacitySlo } from '@teapot/run-definitions';
import { post, readStream } from '../test/sse-client';
import { groundTruthCapacity, simulatorCapacity } from './capacity-truth';
import { decodeStepTimeS, prefillTimeS, resolveDeployment } from './latency-model';
import { replayLoad } from './replay';
import { startSimulator } from './server';

const fp16 = resolveDeployment({ gpu: 'h100-sxm', model: 'llama-8b', quant: 'fp16' });
const fp8 = resolveDeployment({ gpu: 'h100-sxm', model: 'llama-8b', quant: 'fp8' });
const scheduler = {
  maxBatch: 8,
  chunkedPrefill: false,
  chunkSize: 512,
  maxPrefillTokens: 8192,
  kvCacheTokens: 1 << 20,
};
const workload = { inputTokens: 32, outputTokens: 32 };

const slo = (ttftMs: number, tpotMs: number): CapacitySlo => ({
  targets: [
    { metric: 'ttft', percentile: 99, limitMs: ttftMs },
    { metric: 'tpot', percentile: 99, limitMs: tpotMs },
  ],
});

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

describe('replayLoad', () => {
  it('steps as the latency model says: a prefill step, then decode steps of the batch', () => {
    const { requests, steps } = replayLoad({
      deployment: fp16,
      scheduler,
      jitter: 0,
      seed: 1,
      workload: { inputTokens: 100, outputTokens: 5 },
      load: { kind: 'closed', concurrency: 1 },
      requests: 1,
    });
    const prefill = prefillTimeS(fp16, 100);
    expect(steps).toBe(5);
    expect(requests[0].tokenTimesS[0]).toBeCloseTo(prefill, 12);
    for (let k = 1; k < 5; k++) {
      const gap = requests[0].tokenTimesS[k] - requests[0].tokenTimesS[k - 1];
      expect(gap).toBeCloseTo(decodeStepTimeS(fp16, 1, 100 + k), 12);
    }
  });

  it('agrees with the live engine on a stream’s model times (the same scheduler, two clocks)', async () => {
    // no rebase on a busy machine: the live schedule stays absolute, as the replay's is
    const sim = await startSimulator({ jitter: 0, maxBatch: 8, maxLagMs: 600_000 });
    try {
      const res = await post(`${sim.baseUrl}/completions`, {
        prompt: 'w '.repeat(40).trim(),
        stream: true,
        max_tokens: 12,
        ignore_eos: true,
      });
      const id = res.headers.get('x-teapot-response-id')!;
      await readStream(res);
      const truth = sim.groundTruth(id)!;
      const times = truth.events.filter((e) => e.kind === 'content').map((e) => e.scheduledNs);
      const replay = replayLoad({
        deployment: fp16,
        scheduler,
        jitter: 0,
        seed: 1,
        workload: { inputTokens: truth.promptTokens, outputTokens: 12 },
        load: { kind: 'closed', concurrency: 1 },
        requests: 1,
      });
      const replayed = replay.requests[0].tokenTimesS;
      // gaps, not absolute times: the live engine's first step starts when the request arrived
      for (let k = 1; k < times.length; k++) {
        expect(Number(times[k] - times[k - 1]) / 1e9).toBeCloseTo(replayed[k] - replayed[k - 1], 7);
      }
    } finally {
      await sim.close();
    }
  });

  it('queues beyond the service rate: TTFT climbs through the run at 1.5x, stays flat at 0.5x', () => {
    const closed = replayLoad({
      deployment: fp16,
      scheduler,
      jitter: 0.03,
      seed: 2,
      workload,
      load: { kind: 'closed', concurrency: scheduler.maxBatch },
      requests: 400,
    });
    const lastEnd = Math.max(...closed.requests.map((r) => r.tokenTimesS[r.tokenTimesS.length - 1]));
    const serviceRate = 400 / lastEnd;
    const ttftByTenth = (rate: number) => {
      const { requests } = replayLoad({
        deployment: fp16,
        scheduler,
        jitter: 0.03,
        seed: 3,
        workload,
        load: { kind: 'open', ratePerS: rate, arrival: 'poisson' },
        requests: 1000,
      });
      const ttft = requests.map((r) => r.tokenTimesS[0] - r.arrivalS);
      return [median(ttft.slice(100, 200)), median(ttft.slice(900))];
    };
    const [earlyOver, lateOver] = ttftByTenth(1.5 * serviceRate);
    expect(lateOver).toBeGreaterThan(3 * earlyOver);
    const [earlyUnder, lateUnder] = ttftByTenth(0.5 * serviceRate);
    expect(lateUnder).toBeLessThan(2 * earlyUnder);
  });

  it('makes TPOT rise with the batch as the roofline does: flat while memory-bound, then steeper', () => {
    const tpotAt = (batch: number) => {
      const { requests } = replayLoad({
        deployment: fp16,
        scheduler: { ...scheduler, maxBatch: batch },
        jitter: 0,
        seed: 1,
        workload: { inputTokens: 16, outputTokens: 64 },
        load: { kind: 'closed', concurrency: batch },
        requests: batch,
      });
      const t = requests[0].tokenTimesS;
      return (t[t.length - 1] - t[0]) / (t.length - 1);
    };
    for (const batch of [1, 32, 512]) {
      // every sequence decodes together after one shared prefill step: TPOT is the decode step time
      const contextMid = 16 + 32;
      expect(tpotAt(batch)).toBeCloseTo(decodeStepTimeS(fp16, batch, contextMid), 4);
    }
    expect(tpotAt(32) / tpotAt(1)).toBeLessThan(1.3);
    expect(tpotAt(512) / tpotAt(32)).toBeGreaterThan(2);
  });
});

describe('groundTruthCapacity', () => {
  const question = {
    scheduler,
    jitter: 0.03,
    workload,
    dimension: 'rate' as const,
    lowest: 1,
    highest: 512,
    requests: 600,
    seeds: 2,
  };

  it('is lower for a tighter SLO, higher for FP8 when TPOT binds, inside its bracket', () => {
    const loose = groundTruthCapacity({ ...question, deployment: fp16, slo: slo(2000, 100) });
    const tight = groundTruthCapacity({ ...question, deployment: fp16, slo: slo(2000, 7) });
    const tightFp8 = groundTruthCapacity({ ...question, deployment: fp8, slo: slo(2000, 7) });
    expect(loose.capacity).not.toBeNull();
    expect(loose.bracket.failed! / loose.bracket.passed! - 1).toBeLessThanOrEqual(0.01);
    expect(tight.capacity!).toBeLessThan(loose.capacity!);
    expect(tightFp8.capacity!).toBeGreaterThan(tight.capacity!);
    for (const e of loose.evaluations)
      expect(Number.isFinite(e.load) && e.valuesMs.every(Number.isFinite)).toBe(true);
  });

  it('answers no capacity when the lowest load fails, and the highest when it passes', () => {
    const none = groundTruthCapacity({ ...question, deployment: fp16, slo: slo(1, 100) });
    expect(none).toMatchObject({ capacity: null, bracket: { passed: null, failed: 1 } });
    const all = groundTruthCapacity({ ...question, deployment: fp16, highest: 2, slo: slo(60_000, 1000) });
    expect(all).toMatchObject({ capacity: 2, bracket: { passed: 2, failed: null } });
  });

  it('reads a simulator’s options as startSimulator does', () => {
    const answer = simulatorCapacity(
      { maxBatch: 8, quant: 'fp16' },
      {
        workload,
        dimension: 'concurrency',
        slo: slo(200, 100),
        lowest: 1,
        highest: 64,
        requests: 200,
        seeds: 1,
      },
    );
    // at most 8 sequences decode together: more streams wait for a slot, and their TTFT says so
    expect(answer.capacity).not.toBeNull();
    expect(answer.capacity!).toBeGreaterThanOrEqual(8);
    expect(answer.capacity!).toBeLessThan(12);
  });
});
