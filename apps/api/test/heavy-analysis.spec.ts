import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { storeMeasuredRun, syntheticRunResult } from '@teapot/db/testing';
import { waitFor } from '@teapot/testing';
import type { PoolClient } from 'pg';
import type { Response } from 'supertest';
import { AnalysisAdmission } from '../src/admission/analysis-admission';
import { created, endpointBody, startApiForFile } from './api';

// Admitted comparisons block on this lock (they read run_histograms) for as long as a test holds it:
// a slow analysis on demand, while /health and GET /runs, which never read that table, must answer.
const LOCK = 'LOCK TABLE run_histograms IN ACCESS EXCLUSIVE MODE';
const T0 = Date.UTC(2026, 10, 2);

const api = startApiForFile({ TEAPOT_ANALYSIS_CONCURRENCY: '3', TEAPOT_ANALYSIS_CONCURRENCY_PER_KEY: '2' });
let otherKey: string;
const body = {
  baseline: { from: new Date(T0).toISOString(), config: { weightQuant: ['fp16'] } },
  candidate: { from: new Date(T0).toISOString(), config: { weightQuant: ['fp8'] } },
  metrics: ['itl'],
  statistics: ['p50'],
};

/** Comparisons waiting on the test's lock, as Postgres sees them (asked on the API's own pool: the world's holds the lock). */
async function waitingOnLock(): Promise<number> {
  const { rows } = await api.prisma.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%FROM run_histograms%'`,
  );
  return rows[0].n;
}

async function holdLock(): Promise<PoolClient> {
  const holder = await api.world.db.pool.connect();
  await holder.query('BEGIN');
  await holder.query(LOCK);
  return holder;
}

async function releaseLock(holder: PoolClient): Promise<void> {
  await holder.query('COMMIT');
  holder.release();
}

/** Sends POST /comparisons at once (supertest sends on then()) and gives its response when it comes. */
function compare(key: string): Promise<Response> {
  return new Promise((resolve, reject) => {
    api.http.post('/comparisons').set('authorization', `Bearer ${key}`).send(body).then(resolve, reject);
  });
}

beforeAll(async () => {
  otherKey = (await created<{ key: string }>(api, '/api-keys', { name: 'other', scope: 'read' })).key;
  for (const [i, quant] of (['fp16', 'fp8'] as const).entries()) {
    const endpoint = await created(api, '/endpoints', endpointBody({ config: { weightQuant: quant } }));
    const config = await api.prisma.servingConfig.findFirstOrThrow({
      where: { endpointId: endpoint.id as string },
    });
    await storeMeasuredRun(
      api.prisma,
      { endpointId: endpoint.id as string, configId: config.id, startedAt: new Date(T0 + 3_600_000) },
      syntheticRunResult({ requests: 10, tokensPerRequest: 16, seed: i + 1 }),
    );
  }
}, 60_000);

describe('heavy analyses (POST /comparisons)', () => {
  it('admits up to the per-key and per-process bounds, refuses the rest at once with Retry-After, cheap routes answering', async () => {
    const key = api.env.TEAPOT_API_KEY;
    const holder = await holdLock();
    let admitted: Array<Promise<Response>> = [];
    try {
      admitted = [compare(key), compare(key)];
      await waitFor('two comparisons waiting on the lock', async () => (await waitingOnLock()) === 2);
      // The key's bound (2) is reached: its next ones are refused while the first two still wait.
      const overKey = await Promise.all([compare(key), compare(key)]);
      for (const refused of overKey) {
        expect(refused.status).toBe(429);
        expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        expect(refused.body.message).toMatch(/TEAPOT_ANALYSIS_CONCURRENCY_PER_KEY/);
      }
      // Another key may run one more, up to the process' bound (3); then the process refuses.
      admitted.push(compare(otherKey));
      await waitFor('three comparisons waiting on the lock', async () => (await waitingOnLock()) === 3);
      const overProcess = await compare(otherKey);
      expect(overProcess.status).toBe(503);
      expect(Number(overProcess.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(overProcess.body.message).toMatch(/TEAPOT_ANALYSIS_CONCURRENCY\b/);
      // Heavy analyses run on their own pool: the cheap routes still have theirs.
      expect((await api.http.get('/health')).status).toBe(200);
      expect((await api.authed.get('/runs')).status).toBe(200);
      expect(api.app.get(AnalysisAdmission).active).toBe(3);
    } finally {
      await releaseLock(holder);
    }
    for (const response of await Promise.all(admitted)) expect(response.status).toBe(200);
    // Once they have ended, the bounds are free again.
    expect(api.app.get(AnalysisAdmission).active).toBe(0);
    expect((await compare(key)).status).toBe(200);
  }, 60_000);

  it('cancels the analysis and its running statement when the client hangs up', async () => {
    const holder = await holdLock();
    try {
      const { port } = api.app.getHttpServer().address() as AddressInfo;
      const text = JSON.stringify(body);
      const hungUp = httpRequest({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/comparisons',
        headers: {
          authorization: `Bearer ${api.env.TEAPOT_API_KEY}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(text),
        },
      });
      hungUp.on('error', () => undefined);
      hungUp.end(text);
      await waitFor('the comparison waiting on the lock', async () => (await waitingOnLock()) === 1);
      expect(api.app.get(AnalysisAdmission).active).toBe(1);
      hungUp.destroy();
      // The lock is still held: only a cancel on the server ends the statement's wait.
      await waitFor('the statement cancelled', async () => (await waitingOnLock()) === 0, 10_000);
      await waitFor('the admission released', () => api.app.get(AnalysisAdmission).active === 0, 10_000);
      expect(api.logs()).toMatch(/heavy analysis was cancelled: its client went away/);
    } finally {
      await releaseLock(holder);
    }
  }, 60_000);
});
