import { startSimulator, type SimulatorOptions } from '@teapot/simulator';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runBenchmarkInThread } from './in-thread';
import { spreadTokens } from './tokens';
import { TokenizerFileError, type ApiKind, type RunOptions, type RunResult } from './index';
import { CHUNK_KIND } from './types';

const FIXTURES = path.resolve(__dirname, '../../tokenizer/fixtures');

/** The simulator counts with the tokenizer the run is given: a chat one and a completions one. */
const CASES = [
  ['byte-level', 'chat', path.join(FIXTURES, 'byte-level.tokenizer.json')],
  ['sentencepiece', 'completions', path.join(FIXTURES, 'sentencepiece.tokenizer.json')],
] as const;

interface Measured {
  result: RunResult;
  /** Output tokens the simulator sent, by response id. */
  sent: Map<string, number>;
  serverResponses: number;
  /** The engine's prefix-cache counters (prompt tokens looked up, and found). */
  prefixCache: { queries: number; hits: number };
}

/** Runs against a fresh simulator, on a measuring thread as the worker and the CLI do. */
async function measure(
  simulator: SimulatorOptions,
  apiKind: ApiKind,
  file: string,
  overrides: Partial<RunOptions> = {},
): Promise<Measured> {
  const sim = await startSimulator({ seed: 3, ...simulator });
  try {
    const result = await runBenchmarkInThread({
      target: { baseUrl: sim.baseUrl, apiKind, model: sim.deployment.model.name },
      workload: { kind: 'synthetic', inputTokens: 150, outputTokens: 40, lengthJitter: 0.5 },
      load: { kind: 'closed', concurrency: 3 },
      requests: 9,
      forceOutputLength: true,
      seed: 5,
      tokenizer: { name: path.basename(file), bytes: fs.readFileSync(file) },
      ...overrides,
    });
    const sent = new Map<string, number>();
    for (const r of result.requests) {
      const truth = r.responseId === null ? undefined : sim.groundTruth(r.responseId);
      const content = truth?.events.filter((e) => e.kind === 'content') ?? [];
      if (truth)
        sent.set(
          truth.id,
          content.reduce((n, e) => n + e.tokens, 0),
        );
    }
    const { engine, groundTruthResponses } = sim.stats();
    const { prefixCacheQueries: queries, prefixCacheHits: hits } = engine.counters;
    return { result, sent, serverResponses: groundTruthResponses, prefixCache: { queries, hits } };
  } finally {
    await sim.close();
  }
}

describe('a run with the model tokenizer, against the simulator counting with the same one', () => {
  it.each(CASES)(
    'builds prompts the server counts exactly, and takes its usage (%s, %s)',
    async (_, apiKind, file) => {
      const { result } = await measure({ tokenizer: file }, apiKind, file);
      const measured = result.requests.filter((r) => !r.warmup);
      expect(measured.map((r) => r.outcome)).toEqual(Array(9).fill('ok'));
      // jittered lengths, each built to its target in the tokenizer's tokens and counted so by the server
      expect(new Set(measured.map((r) => r.targetPromptTokens)).size).toBeGreaterThan(3);
      for (const r of measured) {
        expect({ server: r.promptTokens, source: r.tokenSource }).toEqual({
          server: r.targetPromptTokens,
          source: 'usage_delta',
        });
        expect(r.outputText).toBeUndefined();
      }
      const bytes = fs.readFileSync(file);
      expect(result.tokenizer).toEqual({
        name: path.basename(file),
        sha256: createHash('sha256').update(bytes).digest('hex'),
        sizeBytes: bytes.length,
      });
      expect(result.summary).toMatchObject({
        tokenizer: result.tokenizer,
        promptTokenSources: { usage: 9 },
        promptOverheadTokens: { min: 0, max: 0 },
        tokenSources: { usage_delta: 9 },
      });
    },
  );

  it.each(CASES)(
    'counts output with the tokenizer when the server reports no usage (%s, %s)',
    async (_, apiKind, file) => {
      const fault = { mode: 'reject-stream-options' } as const;
      const { result, sent } = await measure({ tokenizer: file, fault }, apiKind, file, { requests: 6 });
      expect(result.streamOptions.rejectedByServer).toBe(true);
      const measured = result.requests.filter((r) => !r.warmup && r.outcome === 'ok');
      expect(measured.length).toBe(6);
      for (const r of measured) {
        expect({ source: r.tokenSource, output: r.outputTokens }).toEqual({
          source: 'tokenizer',
          output: sent.get(r.responseId!),
        });
        expect(r.chunkTokens.reduce((a, b) => a + b, 0)).toBe(r.outputTokens);
        expect(r.promptTokens).toBeNull();
        expect(r.outputText).toBeUndefined();
      }
      expect(result.summary).toMatchObject({
        promptTokens: measured.reduce((sum, r) => sum + r.targetPromptTokens!, 0),
        promptTokenSources: { tokenizer: 6 },
        tokenSources: { tokenizer: 6 },
      });
      expect(result.summary.promptOverheadTokens).toBeUndefined();
    },
  );

  it.each(CASES)(
    'counts dataset prompts with the tokenizer before the run, as the server does (%s, %s)',
    async (_, apiKind, file) => {
      const prompts = [
        { prompt: "It's 12345 o'clock: naïve café, 東京 👋🏽 and   spaces\n\tTabs" },
        { prompt: 'function f(x) { return x * 2; } // P99 TTFT = 12.5 ms' },
      ];
      const { result } = await measure({ tokenizer: file }, apiKind, file, {
        workload: { kind: 'dataset', prompts, outputTokens: 5 },
        requests: 4,
      });
      const measured = result.requests.filter((r) => !r.warmup);
      expect(measured.map((r) => r.outcome)).toEqual(Array(4).fill('ok'));
      for (const r of measured) {
        expect(r.targetPromptTokens).toBeGreaterThan(10);
        expect(r.promptTokens).toBe(r.targetPromptTokens);
      }
    },
  );

  it.each(CASES)(
    "shared prefixes in the tokenizer's tokens: the reuse share reported is the server's hit rate (%s, %s)",
    async (_, apiKind, file) => {
      const workload = {
        kind: 'shared-prefix',
        prefixes: 3,
        prefixTokens: 96,
        requestsPerPrefix: 4,
        suffixTokens: 20,
        outputTokens: 4,
      } as const;
      // concurrency 1: each prefix's first use has finished (and is cached) before its reuse
      const { result, prefixCache } = await measure({ tokenizer: file, prefixCaching: true }, apiKind, file, {
        workload,
        requests: 12,
        load: { kind: 'closed', concurrency: 1 },
      });
      const measured = result.requests.filter((r) => !r.warmup);
      expect(measured.map((r) => [r.outcome, r.targetPromptTokens, r.promptTokens])).toEqual(
        Array(12).fill(['ok', 116, 116]),
      );
      const reuse = result.summary.workload!.expectedReuseShare!;
      expect(reuse).toBeCloseTo((3 / 4) * (96 / 116), 9);
      const hitRate = prefixCache.hits / prefixCache.queries;
      expect(Math.abs(reuse - hitRate)).toBeLessThanOrEqual(0.02);
    },
  );

  it('refuses a file that is not a tokenizer before sending anything, as a TokenizerFileError', async () => {
    const file = CASES[0][2];
    const failure = measure({}, 'chat', file, {
      tokenizer: { name: 'model.json', bytes: Buffer.from('{"w": []}') },
    });
    await expect(failure).rejects.toBeInstanceOf(TokenizerFileError);
    await expect(failure).rejects.toThrow(/model\.json is not a tokenizer\.json/);
  });
});

describe('spreadTokens', () => {
  const kinds = (n: number) => {
    const k = new Uint8Array(n + 2).fill(CHUNK_KIND.content);
    k[0] = CHUNK_KIND.empty; // role
    k[n + 1] = CHUNK_KIND.empty; // usage
    return k;
  };

  it('gives every token chunk its share, the remainder to the earliest', () => {
    const tokens = new Uint16Array(6);
    spreadTokens(kinds(4), tokens, 10);
    expect([...tokens]).toEqual([0, 3, 3, 2, 2, 0]);
  });

  it('keeps the first and last token chunks carrying tokens when there are fewer tokens than chunks', () => {
    const tokens = new Uint16Array(7);
    spreadTokens(kinds(5), tokens, 3);
    expect([...tokens]).toEqual([0, 1, 0, 1, 0, 1, 0]);
    spreadTokens(kinds(5), tokens, 1);
    expect([...tokens]).toEqual([0, 1, 0, 0, 0, 0, 0]);
  });
});
