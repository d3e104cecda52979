import { waitFor } from '@teapot/testing-base';
import { streamCompletion as stream } from '../test/simulator';
import type { StepRecord } from './engine';
import { startSimulator } from './server';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * A running stream, then a 4000-token prompt arriving mid-stream: the running stream's gaps (model
 * time), each labelled with the step that ended it (the engine's step record of the same instant).
 */
async function interference(chunkedPrefill: boolean) {
  const sim = await startSimulator({ jitter: 0, maxLagMs: 60_000, chunkedPrefill, chunkSize: 512 });
  try {
    const startNs = process.hrtime.bigint();
    const running = await stream(sim, 10, 60);
    await waitFor('5 tokens', () => (sim.groundTruth(running.id)?.events.length ?? 0) >= 5, 20_000, 5);
    const newcomer = await stream(sim, 4000, 2);
    await Promise.all([running.result, newcomer.result]);
    const steps = new Map<bigint, StepRecord>(sim.steps(startNs).map((s) => [s.endNs, s]));
    const overHttp = (await (await fetch(`${sim.baseUrl}/_teapot/steps?since=${startNs}`)).json()) as {
      data: Array<{ endNs: string; prefillTokens: number }>;
    };
    expect(overHttp.data.map((s) => [BigInt(s.endNs), s.prefillTokens])).toEqual(
      [...steps.values()].map((s) => [s.endNs, s.prefillTokens]),
    );
    expect((await fetch(`${sim.baseUrl}/_teapot/steps?since=yesterday`)).status).toBe(400);
    const times = sim.groundTruth(running.id)!.events.map((e) => e.scheduledNs);
    const gaps = times.slice(1).map((t, i) => ({ ns: Number(t - times[i]), step: steps.get(t)! }));
    // the newcomer's prefill: the steps with prompt tokens after the running stream's own first token
    const prefillSteps = [...steps.values()].filter((s) => s.prefillTokens > 0 && s.endNs > times[0]);
    return { gaps, prefillSteps };
  } finally {
    await sim.close();
  }
}

describe('prefill and running streams', () => {
  it('with chunked prefill, the long prompt shares 8 steps with the decode: each a spike, none a stall', async () => {
    const { gaps, prefillSteps } = await interference(true);
    // the decode takes 1 of the 512-token budget: ceil(4000 / 511) mixed steps, each carrying the decode
    expect(prefillSteps).toHaveLength(8);
    for (const step of prefillSteps) {
      expect(step.decodeTokens).toBe(1);
      expect(step.decodeTokens + step.prefillTokens).toBeLessThanOrEqual(512);
    }
    const plain = median(gaps.filter((g) => g.step.prefillTokens === 0).map((g) => g.ns));
    const spikes = gaps.filter((g) => g.step.prefillTokens > 0).map((g) => g.ns);
    expect(spikes).toHaveLength(8);
    for (const spike of spikes) {
      expect(spike).toBeGreaterThan(1.5 * plain);
      expect(spike).toBeLessThan(8 * plain);
    }
  });

  it('without it, one prefill step of the whole prompt stalls the running stream', async () => {
    const { gaps, prefillSteps } = await interference(false);
    expect(prefillSteps).toHaveLength(1);
    expect(prefillSteps[0]).toMatchObject({ prefillTokens: 4000, decodeTokens: 0 });
    const plain = median(gaps.map((g) => g.ns));
    // the gap that spans the prefill step ends at the decode step after it
    const stall = gaps.find((g) => g.step.startNs === prefillSteps[0].endNs)!;
    expect(stall.ns).toBeGreaterThan(10 * plain);
    expect(stall.ns).toBeGreaterThanOrEqual(Number(prefillSteps[0].endNs - prefillSteps[0].startNs));
  });
});
