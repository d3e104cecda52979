import { snapshotOf, type UnfinishedRunStatus } from '@teapot/contracts';
import type { PrismaClient, Profile, Run, Sweep } from './generated/prisma/client';
import type { RunTrigger } from './generated/prisma/enums';

type Db = Pick<PrismaClient, 'servingConfig' | 'run'>;

/**
 * The serving configuration live on each endpoint: its highest version. A run points at the one
 * live when it was queued. Endpoints without any configuration are absent from the map.
 */
export async function latestServingConfigIds(
  prisma: Pick<PrismaClient, 'servingConfig'>,
  endpointIds: readonly string[],
): Promise<Map<string, string>> {
  if (endpointIds.length === 0) return new Map();
  const configs = await prisma.servingConfig.findMany({
    where: { endpointId: { in: [...new Set(endpointIds)] } },
    orderBy: [{ endpointId: 'asc' }, { version: 'desc' }],
    distinct: ['endpointId'],
    select: { id: true, endpointId: true },
  });
  return new Map(configs.map((config) => [config.endpointId, config.id]));
}

/**
 * A queued run of `profile` with the endpoint's live configuration and the profile's snapshot: how
 * the API queues a manual run, and how tests and benches seed one. Enqueueing its job is the caller's.
 */
export async function createQueuedRun(
  prisma: Db,
  profile: Profile,
  trigger: RunTrigger,
  options: { deploymentId?: string } = {},
): Promise<Run> {
  return prisma.run.create({ data: await queuedFrom(prisma, profile, trigger, options) });
}

/**
 * A queued sweep of a sweep profile (`profile.sweep` set) with the endpoint's live configuration and the
 * profile's snapshot: how the API queues a manual sweep, and how tests seed one. Queueing its first
 * `advance-sweep` job is the caller's. Throws when the profile has no sweep.
 */
export async function createQueuedSweep(
  prisma: Pick<PrismaClient, 'servingConfig' | 'sweep'>,
  profile: Profile,
  trigger: RunTrigger,
  options: { deploymentId?: string } = {},
): Promise<Sweep> {
  if (profile.sweep === null) throw new Error(`profile ${profile.id} is not a sweep profile (no sweep set)`);
  return prisma.sweep.create({
    data: { ...(await queuedFrom(prisma, profile, trigger, options)), spec: profile.sweep },
  });
}

/** What a queued run and a queued sweep both pin when queued: the endpoint's live configuration and the profile as it is now. */
async function queuedFrom(
  prisma: Pick<PrismaClient, 'servingConfig'>,
  profile: Profile,
  trigger: RunTrigger,
  options: { deploymentId?: string },
) {
  const configs = await latestServingConfigIds(prisma, [profile.endpointId]);
  return {
    endpointId: profile.endpointId,
    configId: configs.get(profile.endpointId) ?? null,
    profileId: profile.id,
    profileSnapshot: snapshotOf(profile),
    trigger,
    deploymentId: options.deploymentId ?? null,
  };
}

/**
 * Ends the unfinished runs (`queued`, or also `running` when asked) of the named endpoints as
 * `aborted` with `reason` and class `stopped`: what a launcher that stops every worker does, so no
 * run waits forever. Only rows still in those statuses change, so a worker that claims a run at the
 * same moment keeps it (its claim requires `queued`). Returns how many runs were ended.
 */
export async function abortUnfinishedRuns(
  prisma: Pick<PrismaClient, 'run'>,
  where: { endpointNames: readonly string[]; statuses: readonly UnfinishedRunStatus[] },
  reason: string,
): Promise<number> {
  const { count } = await prisma.run.updateMany({
    where: { status: { in: [...where.statuses] }, endpoint: { name: { in: [...where.endpointNames] } } },
    data: { status: 'aborted', errorClass: 'stopped', error: reason, finishedAt: new Date() },
  });
  return count;
}
