import { persistRunResult } from '@teapot/db';
import { type RequestRecord, requestMetrics, runBenchmark, type RunResult } from '@teapot/measure';
import { type RunningSimulator, startSimulator } from '@teapot/simulator';
import { created, endpointBody, profileBody, type RunningApi, startApi } from './api';

let api: RunningApi;
let sim: RunningSimulator;
let runId: string;
let result: RunResult;

/** The record as the API writes it: typed arrays as arrays, an absent error as null. */
function raw(record: RequestRecord) {
  const { error, chunkOffsetsUs, chunkTokens, chunkKinds, ...rest } = record;
  return {
    ...rest,
    error: error ?? null,
    chunkOffsetsUs: Array.from(chunkOffsetsUs),
    chunkTokens: Array.from(chunkTokens),
    chunkKinds: Array.from(chunkKinds),
  };
}

beforeAll(async () => {
  [api, sim] = await Promise.all([
    startApi(),
    // Some requests get a 429, so the stored run has errors to read back too.
    startSimulator({ seed: 11, tokensPerChunk: 2, fault: { mode: '429', rate: 0.25, retryAfterS: 3 } }),
  ]);
  const endpoint = await created(
    api,
    '/endpoints',
    endpointBody({ baseUrl: sim.baseUrl, model: sim.deployment.model.name, config: { weightQuant: 'fp16' } }),
  );
  const profile = await created(api, '/profiles', profileBody(endpoint.id as string));
  runId = (await created<{ id: string }>(api, '/runs', { profileId: profile.id })).id;

  result = await runBenchmark({
    target: { baseUrl: sim.baseUrl, apiKind: 'chat', model: sim.deployment.model.name },
    workload: { kind: 'synthetic', inputTokens: 48, outputTokens: 24 },
    load: { kind: 'closed', concurrency: 4 },
    requests: 16,
    warmupRequests: 2,
    seed: 5,
    forceOutputLength: true,
  });
  await persistRunResult(api.prisma, runId, result);
}, 60_000);

afterAll(async () => {
  await Promise.all([api?.close(), sim?.close()]);
});

describe('a stored run read back through the API', () => {
  it('has the summary, client health and anchors the measurement package produced', async () => {
    expect(result.requests.some((r) => r.outcome === 'error')).toBe(true);
    expect(result.requests.some((r) => r.outcome === 'ok')).toBe(true);
    const run = (await api.authed.get(`/runs/${runId}`)).body;
    expect(run.summary).toEqual(JSON.parse(JSON.stringify(result.summary)));
    expect(run.clientHealth).toEqual(JSON.parse(JSON.stringify(result.client)));
    expect(run).toMatchObject({
      status: 'partial',
      errorClass: 'endpoint',
      durationUs: result.durationUs,
      monotonicAnchorNs: result.monotonicAnchorNs,
      wallAnchor: new Date(result.wallAnchorMs).toISOString(),
      itlP99Ms: result.summary.itlMs?.p99,
      ttftP50Ms: result.summary.ttftMs?.p50,
      requestsFailed: result.summary.requests.failed,
      errorCounts: result.summary.errorsByClass,
      streamOptionsRejected: result.streamOptions.rejectedByServer,
    });
  });

  it('has every request identical, page by page, with per-token ITL derived as the package derives it', async () => {
    const items: Array<ReturnType<typeof raw> & { metrics: Record<string, unknown> }> = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const url: string = `/runs/${runId}/requests?limit=5${cursor === null ? '' : `&cursor=${cursor}`}`;
      const page = await api.authed.get(url);
      expect(page.status).toBe(200);
      items.push(...page.body.items);
      cursor = page.body.nextCursor;
      pages++;
    } while (cursor !== null);
    expect(pages).toBe(Math.ceil(result.requests.length / 5));
    expect(items).toHaveLength(result.requests.length);
    items.forEach((item, i) => {
      const record = result.requests[i];
      const { metrics, ...stored } = item;
      expect(stored).toEqual(raw(record));
      const expected = requestMetrics(record);
      expect(metrics).toEqual({
        ttftUs: expected.ttftUs,
        e2eUs: expected.e2eUs,
        tpotUs: expected.tpotUs,
        timedTokens: expected.timedTokens,
        itlUs: Array.from(expected.itlUs),
        interChunkUs: Array.from(expected.interChunkUs),
      });
    });
  });

  it('exports the same records as NDJSON and one CSV row per chunk, streamed', async () => {
    const ndjson = await api.authed.get(`/runs/${runId}/requests/export`);
    expect(ndjson.status).toBe(200);
    expect(ndjson.headers['content-type']).toBe('application/x-ndjson');
    expect(ndjson.headers['transfer-encoding']).toBe('chunked');
    const lines = ndjson.text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toEqual(result.requests.map(raw));

    const csv = await api.authed
      .get(`/runs/${runId}/requests/export?format=csv`)
      .buffer(true)
      .parse((response, done) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        response.on('end', () => done(null, text));
      });
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    const [header, ...rows] = (csv.body as string).trimEnd().split('\n');
    expect(header.split(',')).toEqual(
      expect.arrayContaining(['request_index', 'chunk_index', 'offset_us', 'tokens', 'kind']),
    );
    expect(rows).toHaveLength(result.requests.reduce((n, r) => n + Math.max(1, r.chunkOffsetsUs.length), 0));
    const firstOk = result.requests.find((r) => r.outcome === 'ok') as RequestRecord;
    const cells = rows.map((row) => row.split(','));
    const column = (name: string) => header.split(',').indexOf(name);
    const ofFirstOk = cells.filter((c) => Number(c[column('request_index')]) === firstOk.index);
    expect(ofFirstOk.map((c) => Number(c[column('offset_us')]))).toEqual(Array.from(firstOk.chunkOffsetsUs));
    expect(ofFirstOk.map((c) => Number(c[column('tokens')]))).toEqual(Array.from(firstOk.chunkTokens));
    const failed = result.requests.find((r) => r.outcome === 'error') as RequestRecord;
    expect(
      cells.find((c) => Number(c[column('request_index')]) === failed.index)?.[column('error_class')],
    ).toBe(failed.error?.kind);
  });

  it('answers 404 for the requests of an unknown run and 400 for a bad cursor or format', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect((await api.authed.get(`/runs/${unknown}/requests`)).status).toBe(404);
    expect((await api.authed.get(`/runs/${unknown}/requests/export`)).status).toBe(404);
    expect((await api.authed.get(`/runs/${runId}/requests?cursor=-5`)).status).toBe(400);
    expect((await api.authed.get(`/runs/${runId}/requests/export?format=xlsx`)).status).toBe(400);
  });
});
