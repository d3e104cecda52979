import {
  PROFILE_FIELDS_NOT_SNAPSHOTTED,
  PROFILE_SNAPSHOT_FIELDS,
  RUN_ERROR_CLASSES,
  RUN_STATUSES,
  SWEEP_STATUSES,
  SWEEP_STOP_REASONS,
  parseProfileSnapshot,
} from '@teapot/contracts';
import { createDatabase, type Database } from './client';
import { Prisma } from './generated/prisma/client';
import { RunErrorClass, RunStatus, SweepStatus, SweepStopReason } from './generated/prisma/enums';
import { abortUnfinishedRuns, createQueuedRun, latestServingConfigIds } from './runs';
import { createTestDatabase, type TestDatabase } from './testing';

describe('the contracts agree with the data model', () => {
  it('snapshots every Profile column except the row bookkeeping', () => {
    const columns = Object.values(Prisma.ProfileScalarFieldEnum).sort();
    const covered = [...PROFILE_SNAPSHOT_FIELDS, ...PROFILE_FIELDS_NOT_SNAPSHOTTED].sort();
    expect(covered).toEqual(columns);
  });

  it('lists the run statuses of the RunStatus enum, in its order', () => {
    expect([...RUN_STATUSES]).toEqual(Object.values(RunStatus));
  });

  it('lists the run error classes of the RunErrorClass enum, in its order', () => {
    expect([...RUN_ERROR_CLASSES]).toEqual(Object.values(RunErrorClass));
  });

  it('lists the sweep statuses and stop reasons of the SweepStatus and SweepStopReason enums', () => {
    expect([...SWEEP_STATUSES]).toEqual(Object.values(SweepStatus));
    expect([...SWEEP_STOP_REASONS]).toEqual(Object.values(SweepStopReason));
  });
});

describe('createQueuedRun, latestServingConfigIds and abortUnfinishedRuns', () => {
  let testDb: TestDatabase;
  let db: Database;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = createDatabase(testDb.url, { max: 2 });
  });

  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });

  async function endpoint(configVersions: number[]): Promise<string> {
    const { id } = await db.prisma.endpoint.create({
      data: { name: `e-${Math.random()}`, baseUrl: 'http://127.0.0.1:1/v1', apiKind: 'chat', model: 'm' },
    });
    for (const version of configVersions) {
      await db.prisma.servingConfig.create({ data: { endpointId: id, version, note: `v${version}` } });
    }
    return id;
  }

  it('picks the highest version per endpoint and leaves out endpoints without one', async () => {
    const [a, b, none] = [await endpoint([1, 3, 2]), await endpoint([1]), await endpoint([])];
    const latest = await latestServingConfigIds(db.prisma, [a, b, none, a]);
    expect(latest.size).toBe(2);
    const noteOf = async (id: string | undefined) =>
      (await db.prisma.servingConfig.findUniqueOrThrow({ where: { id } })).note;
    expect(await noteOf(latest.get(a))).toBe('v3');
    expect(await noteOf(latest.get(b))).toBe('v1');
  });

  it('queues a run with the live configuration and a snapshot that reads back as the profile', async () => {
    const endpointId = await endpoint([1, 2]);
    const profile = await db.prisma.profile.create({
      data: {
        name: 'p',
        endpointId,
        workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 4 },
        load: { kind: 'closed', concurrency: 1 },
        requestCount: 3,
        slo: { ttftMs: 100 },
      },
    });
    const run = await createQueuedRun(db.prisma, profile, 'manual');
    expect(run.status).toBe('queued');
    expect(run.configId).toBe((await latestServingConfigIds(db.prisma, [endpointId])).get(endpointId));
    const fields = Object.fromEntries(
      Object.entries(profile).filter(
        ([key]) => !(PROFILE_FIELDS_NOT_SNAPSHOTTED as readonly string[]).includes(key),
      ),
    );
    expect(parseProfileSnapshot(run.profileSnapshot)).toEqual(fields);
  });

  it("ends only the named endpoints' runs still in the given statuses, as stopped", async () => {
    const queuedRun = async (endpointId: string, status: 'queued' | 'running' = 'queued') => {
      const profile = await db.prisma.profile.create({
        data: {
          name: `p-${Math.random()}`,
          endpointId,
          workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 4 },
          load: { kind: 'closed', concurrency: 1 },
          requestCount: 3,
        },
      });
      const run = await createQueuedRun(db.prisma, profile, 'schedule');
      return db.prisma.run.update({ where: { id: run.id }, data: { status } });
    };
    const [mine, other] = [await endpoint([1]), await endpoint([1])];
    const { name } = await db.prisma.endpoint.findUniqueOrThrow({ where: { id: mine } });
    const [waiting, measuring, elsewhere] = [
      await queuedRun(mine),
      await queuedRun(mine, 'running'),
      await queuedRun(other),
    ];
    const ended = await abortUnfinishedRuns(
      db.prisma,
      { endpointNames: [name], statuses: ['queued'] },
      'why',
    );
    expect(ended).toBe(1);
    const statusOf = async (id: string) => db.prisma.run.findUniqueOrThrow({ where: { id } });
    expect(await statusOf(waiting.id)).toMatchObject({
      status: 'aborted',
      errorClass: 'stopped',
      error: 'why',
    });
    expect((await statusOf(measuring.id)).status).toBe('running');
    expect((await statusOf(elsewhere.id)).status).toBe('queued');
    expect(
      await abortUnfinishedRuns(db.prisma, { endpointNames: [name], statuses: ['queued', 'running'] }, 'why'),
    ).toBe(1);
    expect((await statusOf(measuring.id)).errorClass).toBe('stopped');
  });
});
