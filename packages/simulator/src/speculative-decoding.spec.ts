import { sampleValue, scrape } from '../test/scrape';
import { post } from '../test/sse-client';
import { streamChat, withSimulator, words } from '../test/simulator';
import type { GroundTruth } from './ground-truth';
import { resolveDeployment, stepTimeBreakdown } from './latency-model';
import { replayLoad } from './replay';
import type { RunningSimulator } from './server';
import { resolveSettings, schedulerOptionsOf } from './settings';

const K = 4;
/** Expected accepted drafts of one verify step: draft j is accepted only with all before it, p^j. */
const expectedAccepted = (p: number, k = K) =>
  Array.from({ length: k }, (_, j) => p ** (j + 1)).reduce((a, b) => a + b);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/** A streamed chat: its ground truth and the tokens of each content chunk as the client counted them (words). */
async function chat(sim: RunningSimulator, prompt: string, maxTokens: number) {
  const { truth, chunks } = await streamChat(sim, [{ role: 'user', content: prompt }], maxTokens);
  return { truth, chunkTokens: chunks.map((text) => text.split(' ').length - 1) };
}

/** Model-time TPOT of one response: from its first to its last token, over the tokens between. */
function tpotS(truth: GroundTruth): number {
  const content = truth.events.filter((e) => e.kind === 'content');
  const tokens = sum(content.map((e) => e.tokens));
  return Number(content.at(-1)!.scheduledNs - content[0].scheduledNs) / 1e9 / (tokens - 1);
}

describe('speculative decoding', () => {
  it('accepts drafts at the configured rate, streams accepted tokens in one chunk, and counts them in /metrics', async () => {
    await withSimulator({ speculativeTokens: K, draftAcceptance: 0.75 }, async (sim) => {
      const results = await Promise.all(
        Array.from({ length: 16 }, (_, i) => chat(sim, words(40, 'w', i * 40), 400)),
      );
      const truths = results.map((r) => r.truth);
      for (const { truth, chunkTokens } of results) {
        expect(sum(chunkTokens)).toBe(400);
        expect(chunkTokens).toEqual(truth.events.filter((e) => e.kind === 'content').map((e) => e.tokens));
        expect(Math.max(...chunkTokens)).toBeLessThanOrEqual(K + 1);
        expect(truth.serving.draftAcceptance).toBeGreaterThanOrEqual(0.6);
        expect(truth.serving.draftAcceptance).toBeLessThanOrEqual(0.9);
      }
      const allChunks = results.flatMap((r) => r.chunkTokens);
      expect(allChunks.filter((n) => n > 1).length).toBeGreaterThan(allChunks.length / 2);

      // configured truth: each response's acceptance p, drafts of K tokens (fewer only at its very end)
      const drafts = sum(truths.map((t) => t.serving.drafts));
      expect(drafts).toBeGreaterThan(1000);
      const expected = sum(
        truths.map((t) => t.serving.drafts * expectedAccepted(t.serving.draftAcceptance!)),
      );
      const accepted = sum(truths.map((t) => t.serving.acceptedTokens));
      const draftTokens = sum(truths.map((t) => t.serving.draftTokens));
      const expectedRate = expected / (drafts * K);
      expect(Math.abs(accepted / draftTokens / expectedRate - 1)).toBeLessThan(0.05);
      // mean accepted length (vLLM's: 1 + accepted per draft) measured from the streams: every chunk after the first is one verify step
      const steps = results.flatMap((r) => r.chunkTokens.slice(1));
      expect(Math.abs(sum(steps) / steps.length / (1 + expected / drafts) - 1)).toBeLessThan(0.05);

      const s = await scrape(sim.baseUrl);
      expect(s.families.get('vllm:spec_decode_num_drafts_total')?.type).toBe('COUNTER');
      expect(sampleValue(s, 'vllm:spec_decode_num_drafts_total')).toBe(drafts);
      expect(sampleValue(s, 'vllm:spec_decode_num_draft_tokens_total')).toBe(draftTokens);
      expect(sampleValue(s, 'vllm:spec_decode_num_accepted_tokens_total')).toBe(accepted);
      const perPosition = [0, 1, 2, 3].map((p) =>
        sampleValue(s, 'vllm:spec_decode_num_accepted_tokens_per_pos_total', { position: String(p) }),
      );
      expect(sum(perPosition)).toBe(accepted);
      for (let p = 1; p < K; p++) expect(perPosition[p]).toBeLessThan(perPosition[p - 1]);
    });
  });

  it('shortens TPOT at batch 1, and a redeployment turns it off', async () => {
    await withSimulator({ speculativeTokens: K, draftAcceptance: 0.8 }, async (sim) => {
      const on = await chat(sim, words(50), 200);
      const view = (await (
        await post(`${sim.baseUrl}/_teapot/deployment`, { speculativeTokens: 0 })
      ).json()) as {
        speculativeTokens: number;
      };
      expect(view.speculativeTokens).toBe(0);
      const off = await chat(sim, words(50), 200);
      expect(off.truth.serving).toMatchObject({
        drafts: 0,
        draftTokens: 0,
        acceptedTokens: 0,
        draftAcceptance: null,
      });
      expect(Math.max(...off.chunkTokens)).toBe(1);
      // the same prompt, so the same acceptance; at batch 1 the verify of K + 1 positions costs what one does
      expect(tpotS(on.truth) / tpotS(off.truth)).toBeLessThan(0.7);
      const s = await scrape(sim.baseUrl);
      expect([...s.families.keys()].filter((name) => name.includes('spec_decode'))).toEqual([]);
    });
  });

  it('pays off less at large batch, where verifying K + 1 positions costs K + 1 times the FLOPs', () => {
    const deployment = resolveDeployment({});
    const meanTpot = (speculativeTokens: number, concurrency: number) => {
      const settings = resolveSettings({ speculativeTokens, draftAcceptance: 0.75 }, deployment);
      const replay = replayLoad({
        deployment,
        scheduler: schedulerOptionsOf(settings, false),
        jitter: 0,
        seed: 3,
        workload: { inputTokens: 512, outputTokens: 128 },
        load: { kind: 'closed', concurrency },
        requests: concurrency * 2,
      });
      const tpots = replay.requests.map((r) => (r.tokenTimesS[127] - r.tokenTimesS[0]) / 127);
      return sum(tpots) / tpots.length;
    };
    const gainAt = (concurrency: number) => meanTpot(0, concurrency) / meanTpot(K, concurrency);
    expect(gainAt(1)).toBeGreaterThan(1.5);
    expect(gainAt(256)).toBeLessThan(gainAt(1) / 1.5);
    // the step itself: at batch 1 the verify is as memory-bound as a plain decode, at 256 compute-bound
    const step = (batch: number, positions: number) =>
      stepTimeBreakdown(deployment, {
        decodeTokens: batch * positions,
        prefillTokens: 0,
        kvTokensRead: batch * 600,
      });
    expect(step(1, K + 1).gemmS / step(1, 1).gemmS).toBeCloseTo(1, 6);
    expect(step(256, K + 1).gemmS / step(256, 1).gemmS).toBeGreaterThan(3);
  });
});
