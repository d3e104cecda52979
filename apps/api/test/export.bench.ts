import { persistRunResult } from '@teapot/db';
import { syntheticRunResult } from '@teapot/db/testing';
import { created, endpointBody, profileBody, startApi } from './api';

const REQUESTS = 1000;
const TOKENS = 1000;

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
    await persistRunResult(
      api.prisma,
      runId,
      syntheticRunResult({ requests: REQUESTS, tokensPerRequest: TOKENS }),
    );
    const lines: string[] = [];
    for (const format of ['ndjson', 'csv']) {
      const bytes = { n: 0 };
      const figure = await measure(
        () =>
          api.authed
            .get(`/runs/${runId}/requests/export?format=${format}`)
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
      const response = await api.authed.get(`/runs/${runId}/requests?limit=100`);
      page.n = response.text.length;
    }, page);
    lines.push(`JSON page of 100 requests: ${figure}`);
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await api.close();
  }
}, 120_000);
