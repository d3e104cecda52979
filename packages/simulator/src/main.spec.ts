import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { post, readStream } from '../test/sse-client';
import { parseCommandLine } from './main';
import { startSimulator, type SimulatorOptions } from './server';

describe('the simulator command line', () => {
  it('maps every flag onto SimulatorOptions', () => {
    const options = parseCommandLine(
      [
        '--port=9000 --host 0.0.0.0 --gpu h200 --model llama-70b --quant fp8 --kv-quant fp8 --tp 2',
        '--max-batch 64 --chunked-prefill --chunk-size 256 --tokens-per-chunk 4 --jitter 0.05 --seed 9',
        '--mean-output 100 --spin-us 0 --fault stall --fault-rate 0.25 --fault-after 7',
        '--kv-cache-tokens 200000 --gpu-memory-utilization 0.85 --tokenizer llama/tokenizer.json',
        '--prefix-caching --speculative-tokens 3 --draft-acceptance 0.6 --draft-model llama-1b',
      ]
        .join(' ')
        .split(' '),
    );
    expect(options).toEqual({
      port: 9000,
      host: '0.0.0.0',
      gpu: 'h200',
      model: 'llama-70b',
      quant: 'fp8',
      kvCacheDtype: 'fp8',
      tp: 2,
      maxBatch: 64,
      chunkedPrefill: true,
      chunkSize: 256,
      prefixCaching: true,
      speculativeTokens: 3,
      draftAcceptance: 0.6,
      draftModel: 'llama-1b',
      tokensPerChunk: 4,
      kvCacheTokens: 200000,
      gpuMemoryUtilization: 0.85,
      jitter: 0.05,
      seed: 9,
      meanOutputTokens: 100,
      spinUs: 0,
      tokenizer: 'llama/tokenizer.json',
      fault: { mode: 'stall', rate: 0.25, afterTokens: 7 },
    });
  });

  it('defaults to port 8000 and recognises --help', () => {
    expect(parseCommandLine([])).toMatchObject({ port: 8000, chunkedPrefill: false, fault: undefined });
    expect(parseCommandLine(['--help'])).toBe('help');
  });

  it.each([
    [['--port', 'abc'], /--port: expected a whole number from 0 to 65535, got "abc"/],
    [['--port', '70000'], /--port: expected a whole number from 0 to 65535, got "70000"/],
    [['--gpu', 'tpu'], /--gpu: expected one of h100-sxm, h200, a100-80gb, l4, got "tpu"/],
    [['--quant', 'fp4'], /--quant: expected one of/],
    [['--tp', '1.5'], /--tp: expected a whole number >= 1/],
    [['--jitter', '2'], /--jitter: expected a number from 0 to 1/],
    [['--fault', 'boom'], /--fault: expected one of refuse, 500/],
    [['--fault-rate', '0.5'], /--fault-rate and --fault-after need --fault/],
    [['--step-ms', '0'], /--step-ms: expected a number from 0.001 to 60000, got "0"/],
    [['--step-ms', '20', '--gpu', 'h200'], /--step-ms replaces the GPU model: leave out --gpu and --tp/],
    [['--kv-cache-tokens', '8'], /--kv-cache-tokens: expected a whole number >= 16/],
    [['--gpu-memory-utilization', '1.2'], /--gpu-memory-utilization: expected a number from 0.01 to 1/],
    [['--bogus'], /^unknown flag --bogus$/],
    [['stray'], /unexpected argument "stray"/],
  ])('refuses %j with a message naming the flag', (argv, message) => {
    expect(() => parseCommandLine(argv)).toThrow(message);
  });

  it('serves --step-ms: every step takes that long in model time, whatever the batch', async () => {
    const options = parseCommandLine('--port 0 --step-ms 20 --jitter 0 --chunked-prefill'.split(' '));
    if (options === 'help') throw new Error('expected options');
    expect(options).toMatchObject({ gpu: { name: 'fixed-step' }, latency: { stepOverheadS: 0.02 } });
    // A generous lag bound: on a busy machine the engine must not restart its schedule mid-test.
    const sim = await startSimulator({ ...(options as SimulatorOptions), maxLagMs: 10_000 });
    try {
      expect(sim.stats().singleStreamMsPerToken).toBeCloseTo(20, 3);
      const streams = await Promise.all(
        [4, 400, 4000].map(async (words, i) => {
          const response = await post(`${sim.baseUrl}/chat/completions`, {
            model: 'llama-8b',
            messages: [{ role: 'user', content: 'word '.repeat(words) }],
            max_tokens: 6 + i,
            ignore_eos: true,
            stream: true,
          });
          const id = response.headers.get('x-teapot-response-id') ?? '';
          await readStream(response);
          return sim.groundTruth(id);
        }),
      );
      const gapsMs = streams.flatMap((truth) => {
        const content = (truth?.events ?? []).filter((e) => e.kind === 'content');
        return content.slice(1).map((e, i) => Number(e.scheduledNs - content[i].scheduledNs) / 1e6);
      });
      expect(gapsMs).toHaveLength(5 + 6 + 7);
      for (const gap of gapsMs) expect(gap).toBeCloseTo(20, 2);
    } finally {
      await sim.close();
    }
  });
});

describe('the simulator given a tokenizer', () => {
  it('refuses a file that is no tokenizer at start, naming it', async () => {
    const bad = join(tmpdir(), `teapot-sim-${process.pid}.json`);
    writeFileSync(bad, '{"weights": []}');
    await expect(startSimulator({ port: 0, tokenizer: bad })).rejects.toThrow(/is not a tokenizer\.json/);
  });
});
