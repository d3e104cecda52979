import { post, readStream } from '../test/sse-client';
import { FIXED_STEP_GPU } from './fixed-step-gpu';
import { startSimulator, type RunningSimulator } from './server';

const slo = {
  targets: [
    { metric: 'ttft', percentile: 99, limitMs: 500 },
    { metric: 'tpot', percentile: 99, limitMs: 30 },
  ],
};
const question = {
  slo,
  dimension: 'rate',
  workload: { inputTokens: 128, outputTokens: 32 },
  lowest: 1,
  highest: 400,
  tolerance: 0.05,
  requests: 400,
  seeds: 2,
};

describe('POST /v1/_teapot/capacity', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ maxBatch: 16 });
  });
  afterAll(() => sim.close());

  it("answers the live deployment's capacity, higher after a redeployment to FP8", async () => {
    const res = await post(`${sim.baseUrl}/_teapot/capacity`, question);
    expect(res.status).toBe(200);
    const fp16 = (await res.json()) as {
      capacity: number;
      bracket: { failed: number };
      atCapacity: { met: boolean };
    };
    expect(fp16.capacity).toBeGreaterThan(1);
    expect(fp16.bracket.failed / fp16.capacity).toBeLessThanOrEqual(1.05 + 1e-9);
    expect(fp16.atCapacity.met).toBe(true);
    sim.reconfigure({ quant: 'fp8' });
    try {
      const fp8 = (await (await post(`${sim.baseUrl}/_teapot/capacity`, question)).json()) as {
        capacity: number;
      };
      expect(fp8.capacity).toBeGreaterThan(fp16.capacity);
    } finally {
      sim.reconfigure({ quant: 'fp16' });
    }
  });

  it('refuses bad input with a 400 naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ dimension: 'speed' }, 'dimension'],
      [{ slo: { targets: [] } }, 'slo'],
      [{ slo: { targets: [{ metric: 'ttft', percentile: 42, limitMs: 5 }] } }, 'slo.targets[0].percentile'],
      [{ slo: { targets: [{ metric: 'tbt', percentile: 99, limitMs: 5 }] } }, 'slo.targets[0].metric'],
      [{ slo: { ...slo, minGoodShare: 2 } }, 'slo.minGoodShare'],
      [{ workload: { inputTokens: 128 } }, 'workload.outputTokens'],
      [{ workload: { inputTokens: 1e6, outputTokens: 1 } }, 'workload'],
      [{ lowest: 0 }, 'lowest'],
      [{ highest: 0.5 }, 'highest'],
      [{ tolerance: 0 }, 'tolerance'],
      [{ requests: 1e6 }, 'requests'],
      [{ arrival: 'bursty' }, 'arrival'],
      [{ burstiness: 2 }, 'burstiness'],
    ];
    for (const [change, param] of cases) {
      const res = await post(`${sim.baseUrl}/_teapot/capacity`, { ...question, ...change });
      expect([param, res.status]).toEqual([param, 400]);
      expect(((await res.json()) as { error: { param: string } }).error.param).toBe(param);
    }
    expect((await post(`${sim.baseUrl}/_teapot/capacity`, 'null')).status).toBe(400);
  });
});

describe('the live server beyond its capacity', () => {
  it('queues: the waiting count rises and TTFT grows through the run', async () => {
    // 10 ms steps at any batch, 8 streams of 8 tokens: about 8 x 1000 / (9 x 10) = 90 requests/s at
    // most, so even a sender slowed to half its pace by a busy machine overloads it twice over
    const sim = await startSimulator({
      gpu: FIXED_STEP_GPU,
      latency: { stepOverheadS: 0.01 },
      jitter: 0,
      maxBatch: 8,
    });
    try {
      const sent: Array<Promise<string>> = [];
      const waiting: number[] = [];
      const body = { prompt: 'a b c d', stream: true, max_tokens: 8, ignore_eos: true };
      const start = performance.now();
      for (let i = 0; i < 200; i++) {
        // 400 requests/s, open loop: sent on schedule whatever the server does
        const due = start + i * 2.5;
        while (performance.now() < due) await new Promise((r) => setTimeout(r, 1));
        sent.push(
          post(`${sim.baseUrl}/completions`, body).then(async (res) => {
            const id = res.headers.get('x-teapot-response-id')!;
            await readStream(res);
            return id;
          }),
        );
        if (i % 20 === 19) waiting.push(sim.stats().engine.waiting);
      }
      const ids = await Promise.all(sent);
      const ttftMs = ids.map((id) => {
        const truth = sim.groundTruth(id)!;
        const first = truth.events.find((e) => e.kind === 'content')!;
        return Number(first.scheduledNs - truth.arrivedNs) / 1e6;
      });
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
      const firstTenth = median(ttftMs.slice(0, 20));
      const lastTenth = median(ttftMs.slice(180));
      expect(lastTenth).toBeGreaterThan(3 * firstTenth);
      expect(Math.max(...waiting.slice(-3))).toBeGreaterThan(Math.max(...waiting.slice(0, 2)) + 10);
    } finally {
      await sim.close();
    }
  });
});
