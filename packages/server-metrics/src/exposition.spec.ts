import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pointOf } from './catalogue';
import { ExpositionError, parseExposition, parseValue } from './exposition';

const VLLM = readFileSync(join(__dirname, 'fixtures', 'vllm-metrics.txt'), 'utf8');
const MODEL = 'meta-llama/Llama-3.1-8B-Instruct';

describe('parseExposition on vLLM-style output', () => {
  const samples = parseExposition(VLLM);

  it('keeps every sample of labelled histograms (the library alone keeps only label-less ones)', () => {
    const buckets = samples.filter((s) => s.name === 'vllm:time_to_first_token_seconds_bucket');
    expect(buckets).toHaveLength(8);
    expect(buckets[3]).toEqual({
      name: 'vllm:time_to_first_token_seconds_bucket',
      labels: { engine: '0', le: '+Inf', model_name: MODEL },
      value: 40,
    });
    expect(
      samples.filter((s) => s.name === 'vllm:time_to_first_token_seconds_count').map((s) => s.value),
    ).toEqual([40, 10]);
  });

  it('reads label escapes, -Inf, NaN and sample timestamps', () => {
    const escaped = samples.find((s) => s.name === 'escapes')!;
    expect(escaped.labels).toEqual({ path: 'C:\\DIR\\FILE.TXT', error: 'Cannot find file:\n"FILE.TXT"' });
    expect(escaped.value).toBe(-Infinity);
    expect(escaped.timestampMs).toBe(1395066363000);
    const waiting = samples.filter((s) => s.name === 'vllm:num_requests_waiting');
    expect(Number.isNaN(waiting[1].value)).toBe(true);
  });

  it('keeps _created series apart, so counters and histograms are read without them', () => {
    expect(samples.some((s) => s.name === 'vllm:num_preemptions_created')).toBe(true);
    const point = pointOf(samples, MODEL);
    expect(point.counters.preemptions).toBe(7);
  });

  it('reduces a scrape to the catalogue: the endpoint model only, summed over engines, NaN skipped', () => {
    const point = pointOf(samples, MODEL);
    expect(point.gauges).toEqual({ running: 16, waiting: 3, kvCacheUsage: 0.625 });
    expect(point.counters).toEqual({
      preemptions: 7,
      prefixCacheQueries: 20000,
      prefixCacheHits: 5000,
      specDecodeDrafts: 100,
      specDecodeDraftTokens: 400,
      specDecodeAcceptedTokens: 250,
    });
    expect(point.histograms.ttft).toEqual({
      le: [0.02, 0.04, 0.1, Infinity],
      counts: [2, 15, 40, 50],
      sum: 5,
      count: 50,
    });
    expect(point.histograms.itl).toBeUndefined();
    // A model the server does not label: every label set is summed.
    expect(pointOf(samples, 'not-served').gauges.running).toBe(116);
  });

  it('reads the older vLLM names when the newer are absent', () => {
    const old = parseExposition('vllm:gpu_cache_usage_perc{model_name="m"} 0.5\n');
    expect(pointOf(old, 'm').gauges.kvCacheUsage).toBe(0.5);
  });
});

describe('parseExposition at the edges of the format', () => {
  it('reads OpenMetrics: counters typed by family name, # EOF ends the body', () => {
    const text = ['# TYPE c counter', 'c_total 5', 'c_created 1.7e9', '# EOF', 'after_eof 1'].join('\n');
    expect(parseExposition(text).map((s) => [s.name, s.value])).toEqual([
      ['c_total', 5],
      ['c_created', 1.7e9],
    ]);
  });

  it('keeps a last line without a newline (the library drops it)', () => {
    expect(parseExposition('a 1\nb +Inf').map((s) => s.value)).toEqual([1, Infinity]);
  });

  it.each([['<html><body>Not found</body></html>'], ['foo bar'], ['foo{a="b" 1'], ['9lives 1'], ['x 0x1A']])(
    'refuses %j whole',
    (text) => {
      expect(() => parseExposition(text)).toThrow(ExpositionError);
    },
  );

  it('reads the value words the format writes and nothing else', () => {
    expect([parseValue('+Inf'), parseValue('-Inf'), parseValue('1e-3'), parseValue('-0.5')]).toEqual([
      Infinity,
      -Infinity,
      0.001,
      -0.5,
    ]);
    expect(Number.isNaN(parseValue('NaN'))).toBe(true);
    expect([parseValue('Infinity'), parseValue(''), parseValue('abc')]).toEqual([null, null, null]);
  });

  it('gives an empty body no samples', () => {
    expect(parseExposition('')).toEqual([]);
    expect(parseExposition('# HELP x nothing yet\n')).toEqual([]);
  });
});
