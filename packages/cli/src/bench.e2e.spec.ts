import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort } from '@teapot/testing-base';
import { EXIT, runCli } from './cli';
import { captureIo } from './test-support/io';
import { simulatorWorld } from './test-support/simulator-world';

jest.setTimeout(60_000);

interface JsonRequest {
  outcome: string;
  responseId: string | null;
  chunkTokens: number[];
  chunkOffsetsUs: number[];
  outputTokens: number;
  promptTokens: number | null;
}

describe('teapot bench against a simulator URL', () => {
  // Two tokens per chunk: the counts must come from the server's usage, not from counting chunks.
  const world = simulatorWorld({ tokensPerChunk: 2, jitter: 0.02 });

  const small = ['--requests', '6', '--concurrency', '3', '--input-tokens', '24', '--output-tokens', '9'];
  const bench = (...flags: string[]) => ['bench', '--url', world.simulator.baseUrl, ...small, ...flags];

  it.each(['undici', 'http1'])(
    '--transport %s: meets a loose SLO (exit 0) and writes token counts equal to the simulator’s ground truth',
    async (transport) => {
      const path = join(world.dir, `result-${transport}.json`);
      const io = captureIo();
      const argv = bench('--transport', transport, '--slo', 'e2e_p99_ms=30000', '--json', path, '--raw');
      const code = await runCli(argv, io);
      expect(io.err()).not.toContain('every request failed');
      expect(code).toBe(EXIT.ok);
      expect(io.out()).toMatch(/^TTFT +[\d.]+ +[\d.]+/m);
      expect(io.out()).toMatch(/^e2e_p99_ms +<= 30000 +[\d.]+ +pass$/m);

      const result = JSON.parse(await readFile(path, 'utf8')) as {
        summary: { outputTokens: number; requests: { succeeded: number } };
        requests: JsonRequest[];
        slo: Array<{ name: string; pass: boolean }>;
      };
      expect(result.summary.requests.succeeded).toBe(6);
      expect(result.slo).toEqual([expect.objectContaining({ name: 'e2e_p99_ms', pass: true })]);
      expect(result.requests).toHaveLength(6);
      let total = 0;
      for (const request of result.requests) {
        expect(request.outcome).toBe('ok');
        const truth = world.simulator.groundTruth(request.responseId ?? '');
        if (!truth) throw new Error(`no ground truth for ${request.responseId}`);
        // One record entry per SSE data event the server wrote, in order, with the same token count.
        expect(request.chunkTokens).toEqual(truth.events.map((e) => e.tokens));
        expect(request.chunkOffsetsUs).toHaveLength(truth.events.length);
        const sent = truth.events.filter((e) => e.kind === 'content').reduce((sum, e) => sum + e.tokens, 0);
        expect(sent).toBe(9);
        expect(request.outputTokens).toBe(sent);
        expect(request.promptTokens).toBe(truth.promptTokens);
        total += request.outputTokens;
      }
      expect(result.summary.outputTokens).toBe(total);
    },
  );

  it('misses an impossible SLO: exit 2 and FAIL in the table', async () => {
    const io = captureIo();
    const code = await runCli(bench('--slo', 'ttft_p50_ms=0.001'), io);
    expect(code).toBe(EXIT.sloMissed);
    expect(io.out()).toMatch(/^ttft_p50_ms +<= 0\.001 +[\d.]+ +FAIL$/m);
  });

  it('with --json - writes only JSON on stdout and the table on stderr, and never prints header values', async () => {
    const io = captureIo();
    const argv = bench('--header', 'X-Tenant: s3cr3t-value', '--json', '-');
    expect(await runCli(argv, io)).toBe(EXIT.ok);
    const result = JSON.parse(io.out()) as { target: { headerNames: string[] }; requests?: unknown };
    expect(result.target.headerNames).toEqual(['X-Tenant']);
    expect(result.requests).toBeUndefined();
    expect(io.err()).toContain('latency (ms)');
    expect(io.out() + io.err()).not.toContain('s3cr3t-value');
  });

  it('replays a trace on its timestamps with its lengths, and reports its sends against the schedule', async () => {
    const trace = join(world.dir, 'trace.jsonl');
    const lines = [0, 40, 80, 90].map((ms, i) =>
      JSON.stringify({ Timestamp: ms / 1000, 'Request tokens': 10 + i, 'Response tokens': 3 + i }),
    );
    await writeFile(trace, lines.join('\n') + '\n');
    const path = join(world.dir, 'trace-result.json');
    const io = captureIo();
    const argv = ['bench', '--url', world.simulator.baseUrl, '--trace', trace, '--trace-speed', '2'];
    expect(await runCli([...argv, '--json', path, '--raw'], io)).toBe(EXIT.ok);
    expect(io.out()).toMatch(/^trace +4 lines over 0\.1 s \(burstgpt\), replayed at 2x$/m);
    expect(io.out()).toMatch(/^sends +\d of 4 over 1 ms behind schedule/m);
    expect(io.out()).toMatch(/^from schedule +TTFT p50 [\d.]+/m);
    const result = JSON.parse(await readFile(path, 'utf8')) as {
      requests: Array<JsonRequest & { scheduledUs: number }>;
    };
    const sent = [...result.requests].sort((a, b) => a.scheduledUs - b.scheduledUs);
    expect(sent.map((r) => r.promptTokens)).toEqual([10, 11, 12, 13]);
    expect(sent.map((r) => r.outputTokens)).toEqual([3, 4, 5, 6]);
    expect(sent.map((r) => Math.round((r.scheduledUs - sent[0].scheduledUs) / 1000))).toEqual([
      0, 20, 40, 45,
    ]);

    await writeFile(trace, lines[0] + '\n' + lines[2] + '\n' + lines[1] + '\n');
    const bad = captureIo();
    expect(await runCli(argv, bad)).toBe(EXIT.error);
    expect(bad.err()).toContain(`--trace ${trace}: line 3: "Timestamp" is earlier than the line before it`);
  });

  it('finds the model from /v1/models and reads prompts from a JSONL dataset', async () => {
    const dataset = join(world.dir, 'prompts.jsonl');
    await writeFile(
      dataset,
      '{"prompt": "why is the sky blue", "output_tokens": 4}\n{"prompt": "hello there"}\n',
    );
    const io = captureIo();
    const argv = [
      'bench',
      '--url',
      world.simulator.baseUrl,
      '--dataset',
      dataset,
      '--output-tokens',
      '6',
      '--requests',
      '4',
    ];
    expect(await runCli(argv, io)).toBe(EXIT.ok);
    expect(io.out()).toContain(`· chat · ${world.simulator.stats().deployment.split(' ')[0]}`);
    expect(io.out()).toMatch(/^tokens +20 output/m);
  });

  it('sends the shipped ShareGPT conversations as sessions, every turn, and reports TTFT by turn', async () => {
    const path = join(world.dir, 'sessions.json');
    const dataset = join(__dirname, '..', '..', 'measure', 'datasets', 'teapot-chats.sharegpt.jsonl');
    const io = captureIo();
    const argv = ['--dataset', dataset, '--dataset-format', 'sharegpt', '--sample', '3', '--max-turns', '2'];
    const url = world.simulator.baseUrl;
    const run = [
      'bench',
      '--url',
      url,
      '--requests',
      '6',
      '--concurrency',
      '3',
      ...argv,
      '--json',
      path,
      '--raw',
    ];
    expect(await runCli(run, io)).toBe(EXIT.ok);
    const result = JSON.parse(await readFile(path, 'utf8'));
    const sessions = new Set(result.requests.map((r: { sessionId: number }) => r.sessionId));
    expect(sessions.size).toBeGreaterThanOrEqual(3);
    expect(result.summary.workload).toMatchObject({
      kind: 'conversations',
      dataset: { read: 32, sampled: 3 },
    });
    expect(result.summary.turns.byTurn.map((t: { turn: number }) => t.turn)).toEqual([0, 1]);
    expect(io.out()).toMatch(/^sent +\d+ sessions · 3 of 32 conversations/m);
    expect(io.out()).toMatch(/^TTFT p50 +first turns [\d.]+ ms · later turns/m);
  });

  it('names the line of a conversation dataset that does not read', async () => {
    const dataset = join(world.dir, 'bad.jsonl');
    await writeFile(dataset, '{"conversations":[{"from":"human","value":"hi"}]}\n{"conversations":[]}\n');
    const io = captureIo();
    expect(await runCli(['bench', '--dataset', dataset, '--dataset-format', 'sharegpt'], io)).toBe(
      EXIT.error,
    );
    expect(io.err().trim()).toBe(`teapot bench: --dataset ${dataset}: line 2: no user turn`);
  });
});

describe('teapot bench when it cannot run', () => {
  it('exits 1 with one line when the model lookup cannot reach the server', async () => {
    const url = `http://127.0.0.1:${await freePort()}/v1`;
    const io = captureIo();
    expect(await runCli(['bench', '--url', url], io)).toBe(EXIT.error);
    expect(io.err().trim()).toBe(
      `teapot bench: cannot reach ${url}/models (ECONNREFUSED); is the server up? (--model skips this lookup)`,
    );
  });

  it('exits 1 when the dataset cannot be read', async () => {
    const io = captureIo();
    expect(await runCli(['bench', '--dataset', '/nonexistent/p.jsonl'], io)).toBe(EXIT.error);
    expect(io.err().trim()).toBe('teapot bench: --dataset: cannot read /nonexistent/p.jsonl (ENOENT)');
  });
});

describe('teapot bench with the built-in simulator', () => {
  it('says which preset it simulates and benchmarks it', async () => {
    const io = captureIo();
    const code = await runCli(
      ['bench', '--requests', '4', '--output-tokens', '8', '--input-tokens', '16'],
      io,
    );
    expect(code).toBe(EXIT.ok);
    expect(io.err()).toContain('benchmarking the built-in simulator: llama-8b fp16 (KV bf16) on h100-sxm');
    expect(io.out()).toContain('simulated: llama-8b fp16 (KV bf16) on h100-sxm · chunked prefill off');
    expect(io.out()).toMatch(/^requests +4 ok · 0 failed$/m);
  });

  it('reports a deployment that does not fit as a flag error', async () => {
    const io = captureIo();
    expect(await runCli(['bench', '--sim-gpu', 'l4', '--sim-model', 'llama-70b'], io)).toBe(EXIT.error);
    expect(io.err()).toMatch(/^teapot bench: --sim-\*: llama-70b at fp16 needs .* GB of weights per GPU/);
  });
});
