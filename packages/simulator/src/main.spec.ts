import { parseCommandLine } from './main';

describe('the simulator command line', () => {
  it('maps every flag onto SimulatorOptions', () => {
    const options = parseCommandLine(
      [
        '--port=9000 --host 0.0.0.0 --gpu h200 --model llama-70b --quant fp8 --kv-quant fp8 --tp 2',
        '--max-batch 64 --chunked-prefill --chunk-size 256 --tokens-per-chunk 4 --jitter 0.05 --seed 9',
        '--mean-output 100 --spin-us 0 --fault stall --fault-rate 0.25 --fault-after 7',
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
      tokensPerChunk: 4,
      jitter: 0.05,
      seed: 9,
      meanOutputTokens: 100,
      spinUs: 0,
      fault: { mode: 'stall', rate: 0.25, afterTokens: 7 },
    });
  });

  it('defaults to port 8000 and recognises --help', () => {
    expect(parseCommandLine([])).toMatchObject({ port: 8000, chunkedPrefill: false, fault: undefined });
    expect(parseCommandLine(['--help'])).toBe('help');
  });

  it.each([
    [['--port', 'abc'], /--port must be an integer >= 0, got "abc"/],
    [['--port', '70000'], /--port must be at most 65535/],
    [['--gpu', 'tpu'], /--gpu must be one of h100-sxm, h200, a100-80gb, l4, got "tpu"/],
    [['--quant', 'fp4'], /--quant must be one of/],
    [['--tp', '1.5'], /--tp must be an integer/],
    [['--jitter', '2'], /--jitter must be a number from 0 to 1/],
    [['--fault', 'boom'], /--fault must be one of refuse, 500/],
    [['--fault-rate', '0.5'], /--fault-rate and --fault-after need --fault/],
    [['--bogus'], /Unknown option '--bogus'/],
    [['stray'], /positional/],
  ])('refuses %j with a message naming the flag', (argv, message) => {
    expect(() => parseCommandLine(argv)).toThrow(message);
  });
});
