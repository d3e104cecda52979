import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { histogram, sampleValue, scrape, type Scrape } from '../test/scrape';
import { Histogram, expose } from './exposition';
import { post, readStream } from '../test/sse-client';
import { FIXED_STEP_GPU } from './fixed-step-gpu';
import type { GroundTruth } from './ground-truth';
import { startSimulator, type RunningSimulator } from './server';

const words = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `w${from + i}`).join(' ');
const seconds = (ns: bigint) => Number(ns) / 1e9;

async function complete(sim: RunningSimulator, body: object, api = 'chat/completions'): Promise<GroundTruth> {
  const response = await post(`${sim.baseUrl}/${api}`, body);
  await readStream(response);
  return sim.groundTruth(response.headers.get('x-teapot-response-id')!)!;
}

/** Every series named in the brief, with its type: the names scrapers written for vLLM read. */
const EXPECTED_TYPES: Record<string, string> = {
  'vllm:num_requests_running': 'GAUGE',
  'vllm:num_requests_waiting': 'GAUGE',
  'vllm:kv_cache_usage_perc': 'GAUGE',
  'vllm:num_preemptions_total': 'COUNTER',
  'vllm:prefix_cache_queries_total': 'COUNTER',
  'vllm:prefix_cache_hits_total': 'COUNTER',
  'vllm:prompt_tokens_total': 'COUNTER',
  'vllm:generation_tokens_total': 'COUNTER',
  'vllm:request_success_total': 'COUNTER',
  'vllm:time_to_first_token_seconds': 'HISTOGRAM',
  'vllm:inter_token_latency_seconds': 'HISTOGRAM',
  'vllm:request_time_per_output_token_seconds': 'HISTOGRAM',
  'vllm:e2e_request_latency_seconds': 'HISTOGRAM',
};

function expectWellFormedHistograms(s: Scrape): void {
  for (const [name, type] of Object.entries(EXPECTED_TYPES)) {
    if (type !== 'HISTOGRAM') continue;
    const h = histogram(s, name);
    for (let i = 1; i < h.buckets.length; i++)
      expect(h.buckets[i][1]).toBeGreaterThanOrEqual(h.buckets[i - 1][1]);
    expect(h.buckets.at(-1)).toEqual([Infinity, h.count]);
  }
}

describe('GET /metrics', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({
      gpu: FIXED_STEP_GPU,
      latency: { stepOverheadS: 0.003 },
      jitter: 0,
      servedModelName: 'org/teapot-8b',
    });
  });
  afterAll(() => sim.close());

  it("serves vLLM's names, types and labels, with values equal to the ground truth", async () => {
    const model = 'org/teapot-8b';
    const chat = (n: number, extra: object = {}) => ({
      model,
      messages: [{ role: 'user', content: words(n) }],
      stream: true,
      ...extra,
    });
    const truths = await Promise.all([
      complete(sim, chat(10, { max_tokens: 12, ignore_eos: true })),
      complete(sim, chat(30, { max_tokens: 20, ignore_eos: true })),
      complete(sim, chat(5, { max_tokens: 400, min_tokens: 1 })),
      complete(sim, { model, prompt: words(7), max_tokens: 9, ignore_eos: true }, 'completions'),
    ]);
    const s = await scrape(sim.baseUrl);
    expect(s.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    for (const [name, type] of Object.entries(EXPECTED_TYPES)) {
      const family = s.families.get(name);
      expect(family?.type).toBe(type);
      const labelSets =
        type === 'HISTOGRAM' ? [histogram(s, name).labels] : family!.metrics.map((m) => m.labels);
      for (const labels of labelSets) expect(labels).toMatchObject({ model_name: model, engine: '0' });
    }
    // speculative decoding is off: its counters are not exported, as vLLM leaves them out
    expect([...s.families.keys()].filter((name) => name.includes('spec_decode'))).toEqual([]);

    const content = (t: GroundTruth) => t.events.filter((e) => e.kind === 'content');
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    expect(sampleValue(s, 'vllm:generation_tokens_total')).toBe(
      sum(truths.flatMap((t) => content(t).map((e) => e.tokens))),
    );
    expect(sampleValue(s, 'vllm:prompt_tokens_total')).toBe(sum(truths.map((t) => t.promptTokens)));
    for (const reason of ['stop', 'length'] as const) {
      expect(sampleValue(s, 'vllm:request_success_total', { finished_reason: reason })).toBe(
        truths.filter((t) => t.finishReason === reason).length,
      );
    }
    expect(sampleValue(s, 'vllm:request_success_total', { finished_reason: 'abort' })).toBe(0);
    expect(sampleValue(s, 'vllm:num_requests_running')).toBe(0);
    expect(sampleValue(s, 'vllm:kv_cache_usage_perc')).toBe(0);

    // the server's own view: TTFT from arrival to the first content write, one ITL per later write
    const ttft = histogram(s, 'vllm:time_to_first_token_seconds');
    expect(ttft.count).toBe(truths.length);
    expect(ttft.sum).toBeCloseTo(sum(truths.map((t) => seconds(content(t)[0].writtenNs - t.arrivedNs))), 6);
    const gaps = truths.flatMap((t) =>
      content(t)
        .slice(1)
        .map((e, i) => seconds(e.writtenNs - content(t)[i].writtenNs)),
    );
    const itl = histogram(s, 'vllm:inter_token_latency_seconds');
    expect(itl.count).toBe(gaps.length);
    expect(itl.sum).toBeCloseTo(sum(gaps), 6);
    const e2e = histogram(s, 'vllm:e2e_request_latency_seconds');
    expect(e2e.count).toBe(truths.length);
    expect(e2e.sum).toBeCloseTo(
      sum(truths.map((t) => seconds(content(t).at(-1)!.writtenNs - t.arrivedNs))),
      6,
    );
    expect(histogram(s, 'vllm:request_time_per_output_token_seconds').count).toBe(
      truths.filter((t) => sum(content(t).map((e) => e.tokens)) > 1).length,
    );
    expectWellFormedHistograms(s);
  });

  it('keeps counters monotonic and histograms cumulative from one scrape to the next', async () => {
    const before = await scrape(sim.baseUrl);
    await Promise.all(
      [3, 8, 13].map((n) =>
        complete(sim, {
          messages: [{ role: 'user', content: words(n) }],
          stream: true,
          max_tokens: n,
          ignore_eos: true,
        }),
      ),
    );
    const after = await scrape(sim.baseUrl);
    for (const [name, type] of Object.entries(EXPECTED_TYPES)) {
      if (type === 'COUNTER') {
        for (const sample of before.families.get(name)!.metrics) {
          expect(sampleValue(after, name, sample.labels)).toBeGreaterThanOrEqual(Number(sample.value));
        }
      }
      if (type === 'HISTOGRAM') {
        const [b, a] = [histogram(before, name), histogram(after, name)];
        expect(a.count).toBeGreaterThanOrEqual(b.count);
        b.buckets.forEach(([, count], i) => expect(a.buckets[i][1]).toBeGreaterThanOrEqual(count));
      }
    }
    expect(
      sampleValue(after, 'vllm:generation_tokens_total') -
        sampleValue(before, 'vllm:generation_tokens_total'),
    ).toBe(24);
    expectWellFormedHistograms(after);
  });

  it('answers OpenMetrics when the scraper asks for it, as prometheus_client does', async () => {
    const response = await fetch(sim.baseUrl.replace(/\/v1$/, '/metrics'), {
      headers: { accept: 'application/openmetrics-text; version=1.0.0,text/plain;version=0.0.4;q=0.5' },
    });
    expect(response.headers.get('content-type')).toBe(
      'application/openmetrics-text; version=1.0.0; charset=utf-8',
    );
    const text = await response.text();
    expect(text.endsWith('# EOF\n')).toBe(true);
    expect(text).toContain('# TYPE vllm:num_preemptions counter\n');
    expect(text).toMatch(/^vllm:num_preemptions_total\{model_name="org\/teapot-8b",engine="0"\} \d+\.0$/m);
    const plain = (await scrape(sim.baseUrl)).text;
    expect(plain).toContain('# TYPE vllm:num_preemptions_total counter\n');
    expect(plain).not.toContain('# EOF');
  });
});

describe('the exposition', () => {
  it('escapes label values and HELP text, and writes NaN and +Inf as the format spells them', () => {
    const name = 'a "quoted" \\ name\nwith a newline';
    const h = new Histogram([0.5]);
    h.observe(0.2);
    h.observe(7);
    const { body } = expose(
      [
        {
          kind: 'gauge',
          name: 'g',
          help: 'back\\slash\nnewline',
          samples: [{ labels: [['model_name', name]], value: NaN }],
        },
        { kind: 'histogram', name: 'h', help: 'h', labels: [], histogram: h },
      ],
      undefined,
    );
    const [gauge, hist] = parsePrometheusTextFormat(body);
    expect(gauge.help).toBe('back\\slash\nnewline');
    expect(gauge.metrics[0].labels).toEqual({ model_name: name });
    expect(gauge.metrics[0].value).toBe('NaN');
    expect(hist.metrics[0]).toEqual({ buckets: { '0.5': '1.0', '+Inf': '2.0' }, count: '2.0', sum: '7.2' });
  });
});

describe('a deployment that shrinks the KV cache', () => {
  it('preempts running requests: /metrics, stats and the ground truth count the same preemptions', async () => {
    const sim = await startSimulator({ gpu: FIXED_STEP_GPU, latency: { stepOverheadS: 0.002 }, jitter: 0 });
    try {
      const view = (await (
        await post(`${sim.baseUrl}/_teapot/deployment`, { kvCacheTokens: 256 })
      ).json()) as {
        kvCacheTokens: number;
      };
      expect(view.kvCacheTokens).toBe(256);
      // 4 x (16 + 100) tokens want 32 blocks of a cache of 16
      const truths = await Promise.all(
        [0, 1, 2, 3].map((i) =>
          complete(
            sim,
            { prompt: words(16, i * 16), max_tokens: 100, ignore_eos: true, stream: true },
            'completions',
          ),
        ),
      );
      const s = await scrape(sim.baseUrl);
      const preemptions = sampleValue(s, 'vllm:num_preemptions_total');
      expect(preemptions).toBeGreaterThan(0);
      expect(sim.stats().engine.preemptions).toBe(preemptions);
      expect(truths.reduce((n, t) => n + t.serving.preemptions, 0)).toBe(preemptions);
      // nothing lost: every token reached its stream once
      for (const t of truths) expect(t.events.filter((e) => e.kind === 'content')).toHaveLength(100);
    } finally {
      await sim.close();
    }
  });
});
