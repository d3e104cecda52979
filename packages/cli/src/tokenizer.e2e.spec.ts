import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { EXIT, runCli } from './cli';
import { captureIo } from './test-support/io';
import { simulatorWorld } from './test-support/simulator-world';

jest.setTimeout(60_000);

const TOKENIZER = resolve(__dirname, '../../tokenizer/fixtures/byte-level.tokenizer.json');

interface JsonResult {
  summary: {
    promptTokens: number;
    promptTokenSources: Record<string, number>;
    tokenSources: Record<string, number>;
    tokenizer: { name: string; sha256: string };
  };
  requests: Array<{
    outcome: string;
    responseId: string;
    outputTokens: number;
    promptTokens: number | null;
    targetPromptTokens: number;
  }>;
}

describe('teapot bench --tokenizer against a simulator counting with the same tokenizer', () => {
  const world = simulatorWorld({ tokenizer: TOKENIZER, tokensPerChunk: 2, jitter: 0.02 });
  const bench = (tokenizer = TOKENIZER) => [
    'bench',
    '--url',
    world.simulator.baseUrl,
    ...['--requests', '6', '--concurrency', '3', '--input-tokens', '77', '--output-tokens', '11'],
    ...['--tokenizer', tokenizer, '--json', join(world.dir, 'result.json'), '--raw'],
  ];

  it('sends prompts the server counts as asked, and says which tokenizer counted', async () => {
    const io = captureIo();
    expect(await runCli(bench(), io)).toBe(EXIT.ok);
    const result = JSON.parse(await readFile(join(world.dir, 'result.json'), 'utf8')) as JsonResult;
    for (const request of result.requests) {
      const truth = world.simulator.groundTruth(request.responseId)!;
      expect({
        sent: request.targetPromptTokens,
        counted: truth.promptTokens,
        usage: request.promptTokens,
      }).toEqual({
        sent: 77,
        counted: 77,
        usage: 77,
      });
      expect(request.outputTokens).toBe(11);
    }
    expect(result.summary).toMatchObject({
      promptTokens: 6 * 77,
      promptTokenSources: { usage: 6 },
      tokenSources: { usage_delta: 6 },
      tokenizer: { name: 'byte-level.tokenizer.json', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
    expect(io.out()).toMatch(/^tokens +66 output · 462 prompt counted by server usage: 6 requests/m);
    expect(io.out()).toMatch(
      /^tokenizer +byte-level\.tokenizer\.json \(sha256 [0-9a-f]{12}, \d+ bytes\) · the server adds 0 prompt tokens/m,
    );
  });

  it('exits 1 with one line naming --tokenizer for a file that is not a tokenizer, or is missing', async () => {
    const notTokenizer = join(world.dir, 'weights.json');
    await writeFile(notTokenizer, '{"weights": [1, 2]}');
    for (const [path, why] of [
      [notTokenizer, /weights\.json is not a tokenizer\.json/],
      [join(world.dir, 'gone.json'), /cannot read tokenizer .*gone\.json: ENOENT/],
    ] as const) {
      const io = captureIo();
      expect(await runCli(bench(path), io)).toBe(EXIT.error);
      expect(io.err()).toMatch(new RegExp(`^teapot bench: --tokenizer: ${why.source}`, 'm'));
      expect(world.simulator.stats().groundTruthResponses).toBe(6);
    }
  });
});
