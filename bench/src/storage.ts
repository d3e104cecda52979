/**
 * Storage speed: persisting and reading back one run of 1,000 requests x 1,000 tokens (one million
 * token timings) with @teapot/db's bulk writer (binary COPY of packed per-request arrays, and the
 * unnest multi-row INSERT alternative), against the baseline of one row per token inserted through
 * Prisma, measured in the same run on a fresh database that the benchmark creates and drops.
 *
 *   pnpm --filter @teapot/bench build && pnpm --filter @teapot/bench storage [-- --full-baseline]
 *
 * The per-token table exists only in the benchmark's database (raw SQL, not in prisma/schema), so
 * Prisma has no model for it and `createMany` cannot be called; the baseline sends what createMany
 * sends — one multi-row INSERT with bind parameters per batch — through `prisma.$executeRawUnsafe`.
 * By default it inserts 100,000 of the million rows and scales linearly (printed as extrapolated);
 * `--full-baseline` inserts all of them.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import {
  createDatabase,
  dropDatabase,
  ensureDatabase,
  migrate,
  persistRunResult,
  readRunRequests,
  type Database,
} from '@teapot/db';
import { persistRunResultByInsert } from '@teapot/db/baselines';
import { runRequestBytes, syntheticRunResult } from '@teapot/db/testing';
import type { RequestRecord, RunResult } from '@teapot/measure';

const REQUESTS = 1_000;
const TOKENS_PER_REQUEST = 1_000;
const TOKENS = REQUESTS * TOKENS_PER_REQUEST;
const BASELINE_ROWS = process.argv.includes('--full-baseline') ? TOKENS : 100_000;
/** Rows per INSERT: 5 parameters a row stays under PostgreSQL's 65,535 bind parameters. */
const BASELINE_BATCH = 5_000;
const REPEATS = 3;
const TARGET_PERSIST_S = 2;
const TARGET_RATIO = 20;

function seconds(start: number): number {
  return (performance.now() - start) / 1000;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function newRun(db: Database, endpointId: string): Promise<string> {
  const run = await db.prisma.run.create({
    data: { endpointId, profileSnapshot: {}, trigger: 'manual', status: 'running' },
  });
  return run.id;
}

/** The bytes of a typed array, which may be a view into a larger buffer (a run's timing slab). */
function bytesOf(array: ArrayBufferView): Buffer {
  return Buffer.from(array.buffer, array.byteOffset, array.byteLength);
}

function sameRecords(a: RequestRecord[], b: RequestRecord[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((r, i) => {
    const o = b[i];
    return (
      r.index === o.index &&
      r.startUs === o.startUs &&
      r.outputTokens === o.outputTokens &&
      bytesOf(r.chunkOffsetsUs).equals(bytesOf(o.chunkOffsetsUs)) &&
      bytesOf(r.chunkTokens).equals(bytesOf(o.chunkTokens)) &&
      bytesOf(r.chunkKinds).equals(bytesOf(o.chunkKinds))
    );
  });
}

/** One row per token: what a naive schema stores, inserted through Prisma in createMany-sized batches. */
async function perTokenBaseline(db: Database, runId: string, result: RunResult): Promise<number> {
  await db.prisma.$executeRawUnsafe(
    `CREATE TABLE token_timings (
       run_id uuid NOT NULL, request_index int NOT NULL, token_index int NOT NULL,
       offset_us int NOT NULL, kind smallint NOT NULL,
       PRIMARY KEY (run_id, request_index, token_index))`,
  );
  const rows: Array<[number, number, number, number]> = [];
  for (const r of result.requests) {
    let token = 0;
    for (let k = 0; k < r.chunkTokens.length && rows.length < BASELINE_ROWS; k++) {
      for (let m = 0; m < r.chunkTokens[k]; m++)
        rows.push([r.index, token++, r.chunkOffsetsUs[k], r.chunkKinds[k]]);
    }
  }
  const start = performance.now();
  for (let at = 0; at < rows.length; at += BASELINE_BATCH) {
    const batch = rows.slice(at, at + BASELINE_BATCH);
    const values = batch
      .map((_, i) => `($1::uuid, $${i * 4 + 2}, $${i * 4 + 3}, $${i * 4 + 4}, $${i * 4 + 5})`)
      .join(', ');
    await db.prisma.$executeRawUnsafe(
      `INSERT INTO token_timings (run_id, request_index, token_index, offset_us, kind) VALUES ${values}`,
      runId,
      ...batch.flat(),
    );
  }
  return seconds(start);
}

async function main(): Promise<void> {
  const server = new URL(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres');
  server.pathname = `/teapot_bench_storage_${randomBytes(4).toString('hex')}`;
  const url = server.toString();
  await ensureDatabase(url);
  const db = createDatabase(url);
  try {
    await migrate(url);
    const endpoint = await db.prisma.endpoint.create({
      data: { name: 'bench', baseUrl: 'http://127.0.0.1:1/v1', apiKind: 'chat', model: 'llama-8b' },
    });
    let start = performance.now();
    const result = syntheticRunResult({ requests: REQUESTS, tokensPerRequest: TOKENS_PER_REQUEST });
    console.log(
      `synthetic run: ${REQUESTS} requests x ${TOKENS_PER_REQUEST} tokens, built in ${seconds(start).toFixed(2)} s`,
    );

    // Warm up the code paths and the connection pool once.
    const warmRun = await newRun(db, endpoint.id);
    await persistRunResult(
      db,
      warmRun,
      syntheticRunResult({ requests: 50, tokensPerRequest: TOKENS_PER_REQUEST }),
    );
    await readRunRequests(db, warmRun);

    const runId = await newRun(db, endpoint.id);
    const copyS: number[] = [];
    const unnestS: number[] = [];
    const readS: number[] = [];
    let readBack: RequestRecord[] = [];
    for (let i = 0; i < REPEATS; i++) {
      start = performance.now();
      await persistRunResultByInsert(db, runId, result);
      unnestS.push(seconds(start));
      start = performance.now();
      await persistRunResult(db, runId, result);
      copyS.push(seconds(start));
      start = performance.now();
      readBack = await readRunRequests(db, runId);
      readS.push(seconds(start));
    }
    if (!sameRecords(result.requests, readBack)) throw new Error('read back differs from what was written');
    // Live rows only: the repeats left dead versions behind that autovacuum has not reclaimed yet.
    const requestBytes = await runRequestBytes(db, runId);

    const measuredS = await perTokenBaseline(db, runId, result);
    const baselineS = (measuredS * TOKENS) / BASELINE_ROWS;
    const extrapolated = BASELINE_ROWS < TOKENS;
    const { rows: baselineRows } = await db.pool.query<{ bytes: string }>(
      `SELECT pg_total_relation_size('token_timings')::text AS bytes`,
    );
    const baselineMb = (Number(baselineRows[0].bytes) * (TOKENS / BASELINE_ROWS)) / 1e6;

    const persist = median(copyS);
    const fmt = (values: number[]) =>
      `median ${median(values).toFixed(3)} s  (runs: ${values.map((v) => v.toFixed(3)).join(', ')})`;
    console.log(
      `\none run, ${TOKENS.toLocaleString('en-US')} token timings (${REPEATS} repeats, each replacing the last)`,
    );
    console.log(`  persistRunResult, binary COPY     ${fmt(copyS)}`);
    console.log(`  persistRunResult, unnest INSERT   ${fmt(unnestS)}`);
    console.log(`  readRunRequests, whole run        ${fmt(readS)}`);
    console.log(
      `  baseline: 1 row per token via Prisma $executeRawUnsafe multi-row INSERT (${BASELINE_BATCH} rows a batch): ` +
        `${measuredS.toFixed(2)} s for ${BASELINE_ROWS.toLocaleString('en-US')} rows` +
        (extrapolated ? ` -> ${baselineS.toFixed(1)} s for 1,000,000 (EXTRAPOLATED linearly)` : ''),
    );
    console.log(
      `  size: run_requests rows ${(requestBytes / 1e6).toFixed(1)} MB vs token_timings table ${baselineMb.toFixed(1)} MB` +
        (extrapolated ? ' (extrapolated)' : ''),
    );
    console.log('\nratios');
    console.log(
      `  per-token Prisma rows / COPY persist   ${(baselineS / persist).toFixed(1)}x (target >= ${TARGET_RATIO}x)`,
    );
    console.log(`  unnest INSERT / COPY persist           ${(median(unnestS) / persist).toFixed(2)}x`);
    console.log(`  read / persist                         ${(median(readS) / persist).toFixed(2)}x`);
    const ok = persist < TARGET_PERSIST_S && baselineS / persist >= TARGET_RATIO;
    console.log(
      `\n${ok ? 'PASS' : 'MISS'}: persist ${persist.toFixed(3)} s (target < ${TARGET_PERSIST_S} s), ` +
        `${(baselineS / persist).toFixed(1)}x faster than per-token rows (target >= ${TARGET_RATIO}x)`,
    );
    if (!ok) process.exitCode = 1;
  } finally {
    await db.close();
    await dropDatabase(url);
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.stack : err);
  process.exit(1);
});
