import { TEST_TOKENIZER } from '@teapot/testing-base';
import { ModelTokenizer } from '@teapot/tokenizer';
import { sampleValue, scrape } from '../test/scrape';
import { post } from '../test/sse-client';
import { streamChat, withSimulator, words } from '../test/simulator';
import { BlockPool, promptBlockHashes } from './block-pool';
import type { GroundTruth } from './ground-truth';
import type { RunningSimulator } from './server';

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

async function chat(
  sim: RunningSimulator,
  messages: Array<{ role: string; content: string }>,
  maxTokens = 8,
) {
  const { truth, chunks } = await streamChat(sim, messages, maxTokens);
  return { truth, text: chunks.join('') };
}

/** When the step that produced the first token ended, and the model-time TTFT from arrival to then. */
const firstTokenNs = (t: GroundTruth) => t.events.find((e) => e.kind === 'content')!.scheduledNs;
const ttftNs = (t: GroundTruth) => Number(firstTokenNs(t) - t.arrivedNs);

/** A shared system prompt of 1000 words, then five questions of 20 words, one after another. */
async function sharedPrefixWorkload(sim: RunningSimulator): Promise<GroundTruth[]> {
  const system = { role: 'system', content: words(1000, 's') };
  const truths: GroundTruth[] = [];
  for (let q = 0; q < 5; q++)
    truths.push((await chat(sim, [system, { role: 'user', content: words(20, `q${q}-`) }])).truth);
  return truths;
}

describe('prefix caching', () => {
  it('reuses the shared prefix in whole blocks: the hits are exactly those blocks, in the ground truth and /metrics', async () => {
    await withSimulator({ prefixCaching: true }, async (sim) => {
      const truths = await sharedPrefixWorkload(sim);
      // 1020-token prompts; blocks 0-61 (992 tokens) hold only system words, block 62 mixes in the question
      expect(truths.map((t) => t.serving.prefixCacheQueryTokens)).toEqual([1020, 1020, 1020, 1020, 1020]);
      expect(truths.map((t) => t.serving.prefixCacheHitTokens)).toEqual([0, 992, 992, 992, 992]);
      const s = await scrape(sim.baseUrl);
      expect(sampleValue(s, 'vllm:prefix_cache_queries_total')).toBe(5 * 1020);
      expect(sampleValue(s, 'vllm:prefix_cache_hits_total')).toBe(4 * 992);
      // the cached blocks nobody holds count as free: usage is back to 0
      expect(sampleValue(s, 'vllm:kv_cache_usage_perc')).toBe(0);
    });
  });

  it('is switched on by a redeployment', async () => {
    await withSimulator({}, async (sim) => {
      const view = (await (
        await post(`${sim.baseUrl}/_teapot/deployment`, { prefixCaching: true })
      ).json()) as {
        prefixCaching: boolean;
      };
      expect(view.prefixCaching).toBe(true);
      const truths = await sharedPrefixWorkload(sim);
      expect(truths.map((t) => t.serving.prefixCacheHitTokens)).toEqual([0, 992, 992, 992, 992]);
    });
  });

  it('hits on a multi-turn conversation resent with its history', async () => {
    await withSimulator({ prefixCaching: true }, async (sim) => {
      const history = [
        { role: 'system', content: words(200, 's') },
        { role: 'user', content: words(30, 'u') },
      ];
      const first = await chat(sim, history, 40);
      const second = await chat(sim, [
        ...history,
        { role: 'assistant', content: first.text },
        { role: 'user', content: words(10, 'v') },
      ]);
      expect(second.truth.promptTokens).toBe(230 + 40 + 10);
      // the first turn's 230 prompt tokens left 14 full blocks cached (its output's blocks are not cached here)
      expect(second.truth.serving.prefixCacheHitTokens).toBe(224);
    });
  });

  it('without it: no queries, no hits, and the prefill in TTFT pays for the whole prompt', async () => {
    const prefillNs = async (prefixCaching: boolean) =>
      withSimulator({ prefixCaching }, async (sim) => {
        const truths = await sharedPrefixWorkload(sim);
        if (!prefixCaching) {
          for (const t of truths)
            expect(t.serving).toMatchObject({ prefixCacheQueryTokens: 0, prefixCacheHitTokens: 0 });
          const s = await scrape(sim.baseUrl);
          expect(sampleValue(s, 'vllm:prefix_cache_queries_total')).toBe(0);
          expect(sampleValue(s, 'vllm:prefix_cache_hits_total')).toBe(0);
        }
        // TTFT's model part, free of the machine's wall time: the step that produced each first token
        const steps = new Map(sim.steps().map((step) => [step.endNs, Number(step.endNs - step.startNs)]));
        const later = truths.slice(1);
        for (const t of later) expect(ttftNs(t)).toBeGreaterThanOrEqual(steps.get(firstTokenNs(t))!);
        return sum(later.map((t) => steps.get(firstTokenNs(t))!)) / 4;
      });
    // a prefill of 1020 tokens against one of 28 (the rest of the prompt after 992 cached)
    expect((await prefillNs(false)) / (await prefillNs(true))).toBeGreaterThan(3);
  });
});

describe('prefix caching with a tokenizer', () => {
  it("blocks the prompt's token ids, so hits are whole blocks of the model's tokens, not of words", async () => {
    const tokenizer = ModelTokenizer.fromFile(TEST_TOKENIZER);
    // "s0 s1 ..." are several tokens each, so words and tokens give different blocks
    const system = { role: 'system', content: words(100, 's') };
    const questions = Array.from({ length: 4 }, (_, q) => ({ role: 'user', content: words(12, `q${q}x`) }));
    const ids = questions.map((q) => [...tokenizer.encode(system.content), ...tokenizer.encode(q.content)]);
    // vLLM's rule in tokens: the whole blocks of the longest prefix shared with an earlier prompt, one token left to compute
    const expectedHits = ids.map((mine, i) => {
      const shared = Math.max(0, ...ids.slice(0, i).map((other) => commonPrefix(mine, other)));
      return 16 * Math.floor(Math.min(shared, mine.length - 1) / 16);
    });
    expect(expectedHits[1]).not.toBe(16 * Math.floor(100 / 16));
    await withSimulator({ prefixCaching: true, tokenizer: TEST_TOKENIZER }, async (sim) => {
      const truths: GroundTruth[] = [];
      for (const question of questions) truths.push((await chat(sim, [system, question])).truth);
      expect(truths.map((t) => t.serving.prefixCacheQueryTokens)).toEqual(ids.map((i) => i.length));
      expect(truths.map((t) => t.serving.prefixCacheHitTokens)).toEqual(expectedHits);
      expect(expectedHits.slice(1).every((hits) => hits > 0)).toBe(true);
    });
  });
});

function commonPrefix(a: readonly number[], b: readonly number[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

describe('prefix caching with preemption', () => {
  it('shares blocks among sequences that are preempted and recomputed, and leaks none', async () => {
    await withSimulator({ prefixCaching: true, kvCacheTokens: 512, maxModelLen: 256 }, async (sim) => {
      const system = { role: 'system', content: words(64, 's') };
      const first = await chat(sim, [system, { role: 'user', content: words(16, 'first') }]);
      // six sequences of 80 prompt + 100 output tokens want 72 blocks of a cache of 32
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          chat(sim, [system, { role: 'user', content: words(16, `u${i}-`) }], 100),
        ),
      );
      expect(first.truth.serving.prefixCacheHitTokens).toBe(0);
      expect(sum(results.map((r) => r.truth.serving.preemptions))).toBeGreaterThan(0);
      for (const { truth } of results) {
        expect(sum(truth.events.filter((e) => e.kind === 'content').map((e) => e.tokens))).toBe(100);
        // at least its first admission found the 4 system blocks
        expect(truth.serving.prefixCacheHitTokens).toBeGreaterThanOrEqual(64);
      }
      expect(sim.stats().engine.kvCacheUsage).toBe(0);
    });
  });
});

describe('the block pool', () => {
  const hashes = (tag: number, blocks: number) =>
    promptBlockHashes(Array.from({ length: blocks * 16 }, (_, i) => tag * 100_000 + i));

  it('chains block hashes: equal prefixes hash equal, a change changes every block after it', () => {
    const a = promptBlockHashes(Array.from({ length: 64 }, (_, i) => i));
    const b = promptBlockHashes(Array.from({ length: 70 }, (_, i) => (i === 20 ? 999 : i)));
    expect(a).toHaveLength(4);
    expect(b).toHaveLength(4);
    expect(b[0]).toBe(a[0]);
    for (let i = 1; i < 4; i++) expect(b[i]).not.toBe(a[i]);
  });

  it('keeps freed blocks cached until their room is needed, evicting the least recently freed first', () => {
    const pool = new BlockPool(8);
    const [first, second] = [hashes(1, 3), hashes(2, 3)];
    for (const blocks of [first, second]) {
      pool.allocate(3);
      blocks.forEach((hash) => pool.register(hash));
    }
    expect(pool.free).toBe(2);
    pool.release(0, first);
    pool.release(0, second);
    expect(pool.free).toBe(8);
    expect(pool.usage).toBe(0);
    expect(pool.cachedPrefix(first, 3)).toBe(3);
    // 4 empty blocks needed with 2 empty: the two least recently freed cached blocks go (first's deepest ones)
    pool.allocate(4);
    expect(pool.cachedPrefix(first, 3)).toBe(1);
    expect(pool.cachedPrefix(second, 3)).toBe(3);
    // a held block is never evicted, and holding an unheld cached block takes it from the free ones
    pool.hold(second);
    expect(pool.free).toBe(1);
    pool.allocate(1);
    expect(pool.cachedPrefix(second, 3)).toBe(3);
    expect(pool.cachedPrefix(first, 3)).toBe(0);
  });
});
