import { persistRunResult } from '@teapot/db';
import { type RequestRecord, type RunResult, summarize } from '@teapot/measure';
import { created, endpointBody, profileBody, startApi } from './api';

const REQUESTS = 1000;
const TOKENS = 1000;

/** A finished run of REQUESTS x TOKENS single-token chunks after a role-only chunk. */
function bigRun(): RunResult {
  const requests: RequestRecord[] = Array.from({ length: REQUESTS }, (_, index) => {
    const offsets = new Uint32Array(TOKENS + 1);
    for (let k = 0; k < offsets.length; k++) offsets[k] = 20_000 + k * 6_000 + (k % 7);
    const tokens = new Uint16Array(TOKENS + 1).fill(1);
    tokens[0] = 0;
    const kinds = new Uint8Array(TOKENS + 1);
    kinds[0] = 3;
    return {
      index,
      warmup: false,
      outcome: 'ok',
      scheduledUs: index * 100,
      startUs: index * 100,
      ttfbUs: 15_000,
      chunkOffsetsUs: offsets,
      chunkTokens: tokens,
      chunkKinds: kinds,
      tokenSource: 'usage_delta',
      outputTokens: TOKENS,
      promptTokens: 128,
      targetPromptTokens: 128,
      responseId: `r${index}`,
      finishReason: 'length',
    };
  });
  const durationUs = 6_100_000;
  return {
    wallAnchorMs: Date.now(),
    monotonicAnchorNs: '1',
    durationUs,
    requests,
    summary: summarize(requests, { durationUs }),
    client: { eventLoopDelayMs: { p50: 1, p99: 1, max: 1, mean: 1 }, saturated: false },
    streamOptions: { requested: true, rejectedByServer: false },
    aborted: false,
    transport: 'undici',
    measureVersion: '0.2.0',
    connectBackoff: { outages: 0, pauses: 0, pausedMs: 0, longestOutageMs: 0, gaveUp: false },
    warmUp: { chunks: 0, connections: 0, durationMs: 0 },
  };
}

/** Time, bytes and heap growth of one streamed download (the body is counted, never kept). */
async function measure(download: () => PromiseLike<unknown>, bytes: { n: number }) {
  const heap0 = process.memoryUsage().heapUsed;
  let peak = heap0;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 10);
  const t0 = performance.now();
  await download();
  clearInterval(timer);
  return `${(bytes.n / 1e6).toFixed(1)} MB in ${(performance.now() - t0).toFixed(0)} ms, heap peak +${((peak - heap0) / 1e6).toFixed(0)} MB`;
}

it(`streams the export of ${REQUESTS} x ${TOKENS} token timings`, async () => {
  const api = await startApi({ LOG_LEVEL: 'warn' });
  try {
    const endpoint = await created(api, '/endpoints', endpointBody());
    const profile = await created(api, '/profiles', profileBody(endpoint.id as string));
    const runId = (await created<{ id: string }>(api, '/runs', { profileId: profile.id })).id;
    await persistRunResult(api.prisma, runId, bigRun());
    const lines: string[] = [];
    for (const format of ['ndjson', 'csv']) {
      const bytes = { n: 0 };
      const figure = await measure(
        () =>
          api.http
            .get(`/runs/${runId}/requests/export?format=${format}`)
            .set('authorization', api.auth)
            .buffer(true)
            .parse((response, done) => {
              response.on('data', (chunk: Buffer) => (bytes.n += chunk.length));
              response.on('end', () => done(null, null));
            }),
        bytes,
      );
      lines.push(`export ${format}: ${figure}`);
    }
    const page = { n: 0 };
    const figure = await measure(async () => {
      const response = await api.http.get(`/runs/${runId}/requests?limit=100`).set('authorization', api.auth);
      page.n = response.text.length;
    }, page);
    lines.push(`JSON page of 100 requests: ${figure}`);
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await api.close();
  }
}, 120_000);
