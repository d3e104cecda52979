import { BENCH_DEFAULTS, parseBenchArgs } from './args';
import { EXIT, runCli } from './cli';
import { captureIo } from './test-support/io';

describe('parseBenchArgs', () => {
  it('gives the demo defaults with no flags: the built-in simulator, closed loop, 128 requests', () => {
    const args = parseBenchArgs([]);
    expect(args).toMatchObject({
      url: null,
      apiKind: 'chat',
      headers: {},
      load: { kind: 'closed', concurrency: BENCH_DEFAULTS.concurrency },
      requests: 128,
      workload: { kind: 'synthetic', inputTokens: 128, outputTokens: 128 },
      forceOutputLength: true,
      warmupRequests: 0,
      slos: [],
      json: null,
      raw: false,
    });
    expect(args.durationS).toBeUndefined();
  });

  it('reads a full closed-loop command line', () => {
    const args = parseBenchArgs(
      [
        '--url=http://gpu-box:8000/v1/',
        '--model',
        'meta-llama/Llama-3.1-8B',
        '--api',
        'completions',
        '--header',
        'X-Team: infra',
        '--concurrency',
        '32',
        '--duration',
        '30',
        '--warmup',
        '4',
        '--input-tokens',
        '512',
        '--output-tokens',
        '256',
        '--seed',
        '7',
        '--timeout',
        '2.5',
        '--transport',
        'http1',
        '--no-force-length',
        '--slo',
        'itl_p99_ms=50',
        '--slo',
        'output_tokens_per_s=1000',
        '--json',
        '-',
        '--raw',
      ],
      {},
    );
    expect(args).toMatchObject({
      url: 'http://gpu-box:8000/v1',
      model: 'meta-llama/Llama-3.1-8B',
      apiKind: 'completions',
      headers: { 'X-Team': 'infra' },
      load: { kind: 'closed', concurrency: 32 },
      requests: undefined,
      durationS: 30,
      warmupRequests: 4,
      workload: { kind: 'synthetic', inputTokens: 512, outputTokens: 256 },
      seed: 7,
      timeoutMs: 2500,
      transport: 'http1',
      forceOutputLength: false,
      json: '-',
      raw: true,
    });
    expect(args.slos.map((g) => g.name)).toEqual(['itl_p99_ms', 'output_tokens_per_s']);
  });

  it('reads an open-loop load with gamma arrivals and a cap', () => {
    const args = parseBenchArgs(['--rate', '12.5', '--burstiness', '0.5', '--max-concurrency', '64']);
    expect(args.load).toEqual({
      kind: 'open',
      ratePerS: 12.5,
      arrival: 'gamma',
      burstiness: 0.5,
      maxConcurrency: 64,
    });
    expect(parseBenchArgs(['--rate', '3']).load).toMatchObject({ arrival: 'poisson' });
    expect(parseBenchArgs(['--rate', '3', '--arrival', 'constant']).load).toMatchObject({
      arrival: 'constant',
    });
  });

  it('turns a bare host into its /v1 base URL', () => {
    expect(parseBenchArgs(['--url', 'https://api.example.com']).url).toBe('https://api.example.com/v1');
  });

  it('sends --api-key, or OPENAI_API_KEY for a --url, as a bearer token unless a header sets it', () => {
    expect(parseBenchArgs(['--url', 'http://h/v1', '--api-key', 'k1']).headers).toEqual({
      authorization: 'Bearer k1',
    });
    expect(parseBenchArgs(['--url', 'http://h/v1'], { OPENAI_API_KEY: 'k2' }).headers).toEqual({
      authorization: 'Bearer k2',
    });
    expect(parseBenchArgs([], { OPENAI_API_KEY: 'k2' }).headers).toEqual({});
    expect(
      parseBenchArgs(['--url', 'http://h/v1', '--header', 'Authorization: Basic x'], { OPENAI_API_KEY: 'k2' })
        .headers,
    ).toEqual({ Authorization: 'Basic x' });
  });

  it('reads the simulator flags', () => {
    expect(
      parseBenchArgs([
        '--sim-gpu',
        'h200',
        '--sim-model',
        'llama-70b',
        '--sim-quant',
        'fp8',
        '--sim-max-batch',
        '16',
        '--sim-tp',
        '2',
        '--sim-chunked-prefill',
        'on',
      ]).simulator,
    ).toEqual({ gpu: 'h200', model: 'llama-70b', quant: 'fp8', tp: 2, maxBatch: 16, chunkedPrefill: true });
    expect(parseBenchArgs([]).simulator).toEqual({
      gpu: 'h100-sxm',
      model: 'llama-8b',
      quant: 'fp16',
      tp: 1,
      chunkedPrefill: false,
    });
  });

  it('takes session, shared-prefix and conversation workloads', () => {
    expect(
      parseBenchArgs(['--multi-turn', '4', '--input-tokens', '32', '--think-time', '500', '--actual-answers'])
        .workload,
    ).toEqual({
      kind: 'multi-turn',
      turns: 4,
      inputTokens: 32,
      outputTokens: 128,
      thinkTime: { distribution: 'exponential', meanMs: 500 },
      actualAnswers: true,
    });
    expect(parseBenchArgs(['--shared-prefix', '8,1024,16', '--input-tokens', '64']).workload).toEqual({
      kind: 'shared-prefix',
      prefixes: 8,
      prefixTokens: 1024,
      requestsPerPrefix: 16,
      suffixTokens: 64,
      outputTokens: 128,
    });
    expect(
      parseBenchArgs([
        '--dataset',
        'c.jsonl',
        '--dataset-format',
        'sharegpt',
        '--max-input-tokens',
        '900',
        '--sample',
        '5',
      ]).workload,
    ).toEqual({
      kind: 'conversations',
      path: 'c.jsonl',
      format: 'sharegpt',
      outputTokens: undefined,
      filters: { maxInputTokens: 900, sample: 5 },
    });
  });

  it.each([
    [['--multi-turn', '2', '--shared-prefix', '1,2,3'], '--multi-turn and --shared-prefix are alternatives'],
    [['--shared-prefix', '1,2'], '--shared-prefix: expected P,L,M'],
    [['--shared-prefix', '1,0,3'], '--shared-prefix (L)'],
    [['--dataset', 'p.jsonl', '--sample', '3'], '--sample need a conversation dataset'],
    [['--dataset', 'p.jsonl', '--dataset-format', 'csv'], '--dataset-format'],
    [['--max-turns', '3'], '--max-turns filter a conversation --dataset'],
    [['--think-time', '100'], '--think-time shape sessions'],
    [['--multi-turn', '2', '--think-time-distribution', 'constant'], 'give --think-time'],
  ])('refuses workload flags that do not go together: %j', (argv, message) => {
    expect(() => parseBenchArgs(argv)).toThrow(message);
  });

  it('takes a trace with its speed and an optional cap on requests in flight', () => {
    const args = parseBenchArgs(['--trace', 't.jsonl', '--trace-speed', '2.5', '--max-concurrency', '8']);
    expect(args.workload).toEqual({ kind: 'trace', path: 't.jsonl', speed: 2.5 });
    expect(args.load).toMatchObject({ kind: 'open', maxConcurrency: 8 });
    expect(args.load).not.toHaveProperty('busyPoll');
    expect(parseBenchArgs(['--trace', 't.jsonl', '--busy-poll']).load).toMatchObject({ busyPoll: true });
    expect(parseBenchArgs(['--rate', '2', '--busy-poll']).load).toMatchObject({ busyPoll: true });
    // replayed whole unless --requests or --duration cut it
    expect(args.requests).toBeUndefined();
    expect(parseBenchArgs(['--trace', 't.jsonl']).workload).toEqual({
      kind: 'trace',
      path: 't.jsonl',
      speed: 1,
    });
  });

  it.each([
    [['--trace', 't.jsonl', '--rate', '5'], '--rate cannot be combined with --trace'],
    [['--trace', 't.jsonl', '--concurrency', '5'], '--concurrency cannot be combined with --trace'],
    [['--trace', 't.jsonl', '--input-tokens', '5'], '--input-tokens cannot be combined with --trace'],
    [['--trace', 't.jsonl', '--dataset', 'p.jsonl'], '--dataset and --trace are alternatives'],
    [['--trace', 't.jsonl', '--trace-speed', '0'], '--trace-speed: expected a number > 0, got "0"'],
    [['--trace-speed', '2'], '--trace-speed sets the replay speed of a --trace FILE'],
    [['--trace', ''], '--trace: expected a file path'],
  ])('refuses trace flags that do not fit: %j', (argv, message) => {
    expect(() => parseBenchArgs(argv)).toThrow(message);
  });

  it('takes a dataset with a default output length', () => {
    expect(parseBenchArgs(['--dataset', 'p.jsonl', '--output-tokens', '64']).workload).toEqual({
      kind: 'dataset',
      path: 'p.jsonl',
      outputTokens: 64,
    });
  });
});

describe('teapot bench with bad flags', () => {
  const cases: Array<[argv: string[], message: string]> = [
    [['--bogus'], 'unknown flag --bogus'],
    [['--url'], '--url needs a value'],
    [['--url', '--model', 'm'], '--url needs a value'],
    [['--raw=yes', '--json', 'x'], '--raw is a switch and takes no value'],
    [['stray'], 'unexpected argument "stray"'],
    [['--url', 'not a url'], '--url: expected an http(s) base URL'],
    [['--url', 'ftp://host/v1'], '--url: expected an http:// or https:// URL'],
    [['--url', 'http://u:p@host/v1'], '--url: put credentials in --api-key or --header'],
    [['--url', 'http://host/v1/chat/completions'], '--url: give the base URL'],
    [['--api', 'embeddings'], '--api: expected one of chat, completions, got "embeddings"'],
    [['--concurrency', '0'], '--concurrency: expected a whole number >= 1, got "0"'],
    [['--concurrency', '2.5'], '--concurrency: expected a whole number >= 1, got "2.5"'],
    [['--concurrency', 'lots'], '--concurrency: expected a whole number >= 1, got "lots"'],
    [['--concurrency', '4', '--rate', '2'], '--concurrency and --rate are alternatives'],
    [['--rate', '0'], '--rate: expected a number > 0, got "0"'],
    [['--rate', 'fast'], '--rate: expected a number > 0, got "fast"'],
    [['--arrival', 'gamma'], '--arrival shapes an open-loop load and needs --rate R'],
    [['--max-concurrency', '4'], '--max-concurrency shapes an open-loop load and needs --rate R'],
    [['--busy-poll'], '--busy-poll shapes an open-loop load and needs --rate R'],
    [
      ['--rate', '2', '--arrival', 'uniform'],
      '--arrival: expected one of poisson, gamma, constant, got "uniform"',
    ],
    [
      ['--rate', '2', '--arrival', 'poisson', '--burstiness', '0.5'],
      '--burstiness is the shape of gamma arrivals',
    ],
    [['--rate', '2', '--burstiness', '-1'], '--burstiness needs a value'],
    [['--requests', '10', '--duration', '5'], '--requests and --duration are alternatives'],
    [['--requests', '0'], '--requests: expected a whole number >= 1, got "0"'],
    [['--duration', '0'], '--duration: expected a number > 0, got "0"'],
    [['--warmup', 'x'], '--warmup: expected a whole number >= 0, got "x"'],
    [['--input-tokens', '0'], '--input-tokens: expected a whole number >= 1, got "0"'],
    [['--output-tokens', ''], '--output-tokens: expected a whole number >= 1, got ""'],
    [['--seed', '1e3'], '--seed: expected a whole number >= 0, got "1e3"'],
    [['--timeout', '-'], '--timeout: expected a number > 0, got "-"'],
    [['--transport', 'h2'], '--transport: expected one of http1, undici, got "h2"'],
    [['--dataset', 'p.jsonl', '--input-tokens', '10'], '--input-tokens cannot be combined with --dataset'],
    [['--raw'], '--raw needs --json PATH|-'],
    [['--json', ''], '--json: expected a file path or - for stdout'],
    [['--model', ' '], '--model: expected a value, got an empty string'],
    [['--url', 'http://h/v1', '--sim-gpu', 'h100-sxm'], '--sim-gpu configures the built-in simulator'],
    [['--sim-max-batch', '0'], '--sim-max-batch: expected a whole number >= 1, got "0"'],
    [['--sim-chunked-prefill', 'maybe'], '--sim-chunked-prefill: expected one of on, off, got "maybe"'],
    [['--sim-gpu', 'tpu'], '--sim-gpu: expected one of h100-sxm, h200, a100-80gb, l4, got "tpu"'],
    [['--sim-model', 'gpt-5'], '--sim-model: expected one of llama-8b, llama-70b, llama-1b, got "gpt-5"'],
    [['--sim-quant', 'fp4'], '--sim-quant: expected one of fp16, bf16, fp8, int8, int4, got "fp4"'],
    [['--sim-tp', '0'], '--sim-tp: expected a whole number >= 1, got "0"'],
    [['--slo', 'itl_p99'], '--slo: expected METRIC_STAT_ms=N'],
    [['--slo', 'itl_p98_ms=5'], '--slo: unknown objective "itl_p98_ms"'],
    [['--slo', 'latency_p99_ms=5'], '--slo: unknown objective "latency_p99_ms"'],
    [['--slo', 'itl_p99_ms=abc'], '--slo itl_p99_ms: expected a number > 0, got "abc"'],
    [['--slo', 'itl_p99_ms=0'], '--slo itl_p99_ms: expected a number > 0, got "0"'],
    [['--slo', 'itl_p99_ms=5', '--slo', 'itl_p99_ms=6'], '--slo: itl_p99_ms is given twice'],
  ];

  it.each(cases)('%j -> exit 1 and "%s"', async (argv, message) => {
    const io = captureIo();
    const code = await runCli(['bench', ...argv], io);
    expect(code).toBe(EXIT.error);
    const lines = io.err().trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain(`teapot bench: ${message}`);
    expect(lines[1]).toBe("Run 'teapot bench --help' for the flags.");
    expect(io.out()).toBe('');
  });

  it('never echoes a header value, even a malformed one', async () => {
    for (const header of ['Bearer sk-secret-123', 'Bad Name: sk-secret-123']) {
      const io = captureIo();
      expect(await runCli(['bench', '--header', header], io)).toBe(EXIT.error);
      expect(io.err()).toContain("--header: expected 'Name: value'");
      expect(io.err()).not.toContain('sk-secret-123');
    }
    const io = captureIo();
    expect(await runCli(['bench', '--header', 'X-Key: sk-1', '--header', 'x-key: sk-2'], io)).toBe(
      EXIT.error,
    );
    expect(io.err()).toContain('--header: x-key is given twice');
    expect(io.err()).not.toMatch(/sk-[12]/);
  });

  it('rejects an unknown command and a missing one', async () => {
    const unknown = captureIo();
    expect(await runCli(['benchmark'], unknown)).toBe(EXIT.error);
    expect(unknown.err()).toContain('teapot: unknown command "benchmark"');
    const missing = captureIo();
    expect(await runCli([], missing)).toBe(EXIT.error);
    expect(missing.err()).toContain('Usage: teapot bench');
  });

  it('prints the help on stdout with exit 0', async () => {
    for (const argv of [['bench', '--help'], ['bench', '-h'], ['--help']]) {
      const io = captureIo();
      expect(await runCli(argv, io)).toBe(EXIT.ok);
      expect(io.out()).toContain('--slo NAME=VALUE');
      expect(io.err()).toBe('');
    }
  });
});
