import { parseProfileSnapshot } from '@teapot/contracts';
import type { Profile } from '../generated/prisma/client';
import { createQueuedSweep } from '../runs';
import { openTestDatabase, type OpenTestDatabase } from '../testing';
import { SweepStore } from './sweeps';

const SPEC = { kind: 'points', dimension: 'rate', points: [1, 2, 4] };

describe('SweepStore against Postgres', () => {
  let db: OpenTestDatabase;
  let store: SweepStore;

  beforeAll(async () => {
    db = await openTestDatabase({ max: 4 });
    store = new SweepStore(db);
  });

  afterAll(() => db?.close());

  async function sweepProfile(name = `p-${Math.random()}`): Promise<Profile> {
    const endpoint = await db.prisma.endpoint.create({
      data: { name: `e-${Math.random()}`, baseUrl: 'http://127.0.0.1:1/v1', apiKind: 'chat', model: 'm' },
    });
    await db.prisma.servingConfig.create({
      data: { endpointId: endpoint.id, version: 1, gpuCount: 2, usdPerGpuHour: 2.5 },
    });
    return db.prisma.profile.create({
      data: {
        name,
        endpointId: endpoint.id,
        workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 4 },
        load: { kind: 'closed', concurrency: 1 },
        requestCount: 3,
        sweep: SPEC,
      },
    });
  }

  const pointSnapshot = (snapshot: unknown, ratePerS: number) => ({
    ...(snapshot as object),
    load: { kind: 'open', ratePerS, arrival: 'poisson' },
  });

  it('queues a sweep with its spec, snapshot and the live configuration, and reads it back', async () => {
    const profile = await sweepProfile();
    const sweep = await createQueuedSweep(db.prisma, profile, 'manual');
    const stored = await store.withPoints(sweep.id);
    expect(stored).toMatchObject({
      id: sweep.id,
      profileId: profile.id,
      endpointId: profile.endpointId,
      trigger: 'manual',
      status: 'queued',
      stopReason: null,
      spec: SPEC,
      points: [],
    });
    expect(stored?.configId).not.toBeNull();
    expect(parseProfileSnapshot(stored?.profileSnapshot).sweep).toEqual(SPEC);
    await expect(createQueuedSweep(db.prisma, { ...profile, sweep: null }, 'manual')).rejects.toThrow(
      'not a sweep profile',
    );
  });

  it('inserts each point once, keeps them in order and links them to the sweep', async () => {
    const profile = await sweepProfile();
    const sweep = await createQueuedSweep(db.prisma, profile, 'manual');
    expect(await store.start(sweep.id)).toBe(true);
    expect(await store.start(sweep.id)).toBe(false);

    const first = await store.insertPointRun({
      sweepId: sweep.id,
      index: 0,
      snapshot: pointSnapshot(sweep.profileSnapshot, 1),
    });
    const again = await store.insertPointRun({
      sweepId: sweep.id,
      index: 0,
      snapshot: pointSnapshot(sweep.profileSnapshot, 99),
    });
    expect(first.created).toBe(true);
    expect(again).toEqual({ runId: first.runId, created: false });
    // Both inserts at once: exactly one run for the point.
    const racing = await Promise.all(
      [2, 3].map((rate) =>
        store.insertPointRun({
          sweepId: sweep.id,
          index: 1,
          snapshot: pointSnapshot(sweep.profileSnapshot, rate),
        }),
      ),
    );
    expect(racing.filter((r) => r.created)).toHaveLength(1);
    expect(racing[0].runId).toBe(racing[1].runId);

    const run = await db.prisma.run.findUniqueOrThrow({ where: { id: first.runId } });
    expect(run).toMatchObject({
      status: 'queued',
      trigger: 'manual',
      sweepId: sweep.id,
      sweepIndex: 0,
      profileId: profile.id,
      configId: sweep.configId,
      slotKey: null,
    });
    expect(await db.prisma.run.count({ where: { sweepId: sweep.id } })).toBe(2);

    await db.prisma.run.update({
      where: { id: first.runId },
      data: { status: 'succeeded', finishedAt: new Date(), sweepPoint: { offered: 1, good: 3 } },
    });
    const stored = await store.withPoints(sweep.id);
    expect(stored?.status).toBe('running');
    expect(stored?.startedAt).not.toBeNull();
    expect(stored?.points.map((p) => [p.index, p.status, p.load])).toEqual([
      [0, 'succeeded', { kind: 'open', ratePerS: 1, arrival: 'poisson' }],
      [1, 'queued', expect.objectContaining({ kind: 'open' })],
    ]);
    expect(stored?.points[0].point).toEqual({ offered: 1, good: 3 });
    expect(stored?.points[1].point).toBeNull();
    await expect(
      store.insertPointRun({ sweepId: '00000000-0000-4000-8000-000000000000', index: 0, snapshot: {} }),
    ).rejects.toThrow('does not exist');
  });

  it('finishes a sweep once, with its outcome', async () => {
    const sweep = await createQueuedSweep(db.prisma, await sweepProfile(), 'manual');
    const outcome = {
      status: 'succeeded',
      stopReason: 'converged',
      capacity: 3.5,
      bracketPassed: 3.5,
      bracketFailed: 3.6,
      costPerMtokAtCapacity: 1.25,
    } as const;
    expect(await store.finish(sweep.id, outcome)).toBe(true);
    expect(await store.finish(sweep.id, { status: 'aborted', stopReason: 'aborted' })).toBe(false);
    const stored = await store.withPoints(sweep.id);
    expect(stored).toMatchObject({ ...outcome, error: null, errorClass: null });
    expect(stored?.finishedAt).not.toBeNull();
  });

  it('finds unfinished sweeps whose last point ended (or that have none) once idle for the grace', async () => {
    const measuring = await createQueuedSweep(db.prisma, await sweepProfile(), 'manual');
    const between = await createQueuedSweep(db.prisma, await sweepProfile(), 'manual');
    const fresh = await createQueuedSweep(db.prisma, await sweepProfile(), 'manual');
    const done = await createQueuedSweep(db.prisma, await sweepProfile(), 'manual');
    for (const sweep of [measuring, between]) {
      await store.insertPointRun({ sweepId: sweep.id, index: 0, snapshot: sweep.profileSnapshot });
    }
    const ended = await store.insertPointRun({
      sweepId: between.id,
      index: 1,
      snapshot: between.profileSnapshot,
    });
    const finishedAt = new Date(Date.now() - 60_000);
    await db.prisma.run.updateMany({
      where: { sweepId: between.id },
      data: { status: 'partial', finishedAt },
    });
    await store.finish(done.id, { status: 'succeeded', stopReason: 'completed' });
    const ours = new Set([measuring.id, between.id, fresh.id, done.id]);
    const idle = async (before: Date) => (await store.idle(before, 100)).filter((s) => ours.has(s.id));

    // 30 s ago: only the sweep whose last point ended a minute ago.
    expect(await idle(new Date(Date.now() - 30_000))).toEqual([{ id: between.id, measured: 2 }]);
    // Now: the fresh sweep with no point yet too; never the one measuring or the finished one.
    expect(await idle(new Date(Date.now() + 1_000))).toEqual([
      { id: between.id, measured: 2 },
      { id: fresh.id, measured: 0 },
    ]);
    expect(ended.created).toBe(true);
  });

  it("lists a profile's and an endpoint's sweeps newest first, a page at a time", async () => {
    const profile = await sweepProfile();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const sweep = await createQueuedSweep(db.prisma, profile, 'schedule');
      // Two sweeps share a queue time: ties go by id.
      await db.prisma.sweep.update({
        where: { id: sweep.id },
        data: { queuedAt: new Date(Date.UTC(2026, 0, 1, 0, Math.min(i, 3))) },
      });
      ids.push(sweep.id);
    }
    const firstPage = await store.list({ profileId: profile.id }, { limit: 3 });
    const last = firstPage[firstPage.length - 1];
    const secondPage = await store.list(
      { profileId: profile.id },
      { limit: 3, after: { queuedAt: last.queuedAt, id: last.id } },
    );
    const listed = [...firstPage, ...secondPage].map((s) => s.id);
    expect(listed).toHaveLength(5);
    expect(new Set(listed).size).toBe(5);
    const expected = [...ids].sort((a, b) => {
      const at = (id: string) => Math.min(ids.indexOf(id), 3);
      return at(b) - at(a) || (b < a ? -1 : 1);
    });
    expect(listed).toEqual(expected);
    expect((await store.list({ endpointId: profile.endpointId }, { limit: 10 })).map((s) => s.id)).toEqual(
      expected,
    );
  });

  it("aborts only the named endpoints' unfinished sweeps, as stopped", async () => {
    const [mine, other] = [await sweepProfile(), await sweepProfile()];
    const running = await createQueuedSweep(db.prisma, mine, 'manual');
    await store.start(running.id);
    const ended = await createQueuedSweep(db.prisma, mine, 'manual');
    await store.finish(ended.id, { status: 'succeeded', stopReason: 'completed' });
    const elsewhere = await createQueuedSweep(db.prisma, other, 'manual');
    const { name } = await db.prisma.endpoint.findUniqueOrThrow({ where: { id: mine.endpointId } });
    expect(await store.abortUnfinished([name], 'launcher stopped')).toBe(1);
    expect(await store.withPoints(running.id)).toMatchObject({
      status: 'aborted',
      stopReason: 'aborted',
      errorClass: 'stopped',
      error: 'launcher stopped',
    });
    expect((await store.withPoints(ended.id))?.status).toBe('succeeded');
    expect((await store.withPoints(elsewhere.id))?.status).toBe('queued');
  });

  it('queues one sweep per scheduled slot, returning it again only while queued', async () => {
    const profile = await sweepProfile();
    const slot = {
      profileId: profile.id,
      slotKey: `${profile.id}@1767225600000`,
      configId: null,
      spec: SPEC,
      snapshot: { id: profile.id },
    };
    const [first] = await store.queueScheduled([slot]);
    expect(await store.queueScheduled([slot])).toEqual([first]);
    await store.start(first.sweepId);
    expect(await store.queueScheduled([slot])).toEqual([]);
    expect(await db.prisma.sweep.count({ where: { slotKey: slot.slotKey } })).toBe(1);
  });
});
