import { ConflictException, Logger, ServiceUnavailableException } from '@nestjs/common';
import type { PrismaClient, Profile } from '@teapot/db';
import {
  MissingReferenceException,
  RequestValidationException,
} from '../errors/request-validation.exception';
import { withTimeout } from './timeout';

/** How long a request that queues jobs waits for Redis to take them. */
export const ENQUEUE_TIMEOUT_MS = 2_000;

export type LaunchKind = 'run' | 'sweep';

// A run is one load; a sweep is many runs with an outcome of its own, so each has its own resource.
const LAUNCHES: Record<
  LaunchKind,
  { fits(profile: Profile): boolean; otherKind(profileId: string): string }
> = {
  run: {
    fits: (profile) => profile.sweep === null,
    otherKind: (id) => `names a sweep profile: start a sweep of it with POST /sweeps {"profileId": "${id}"}`,
  },
  sweep: {
    fits: (profile) => profile.sweep !== null,
    otherKind: (id) =>
      `names a single-load profile (no sweep set): run it with POST /runs, or PATCH /profiles/${id} a sweep first`,
  },
};

const logger = new Logger('Launch');

/**
 * The profile a POST /runs or POST /sweeps names, when it can be launched as `kind`: 404 when
 * `profileId` names no profile, 400 when it is a profile of the other kind, 409 when its endpoint is
 * archived.
 */
export async function launchableProfile(
  prisma: Pick<PrismaClient, 'profile'>,
  profileId: string,
  kind: LaunchKind,
): Promise<Profile> {
  const found = await prisma.profile.findUnique({ where: { id: profileId }, include: { endpoint: true } });
  if (!found) throw new MissingReferenceException([{ field: 'profileId', problem: 'names no profile' }]);
  const { endpoint, ...profile } = found;
  if (!LAUNCHES[kind].fits(profile))
    throw new RequestValidationException([
      { field: 'profileId', problem: LAUNCHES[kind].otherKind(profileId) },
    ]);
  if (endpoint.archivedAt) {
    throw new ConflictException(
      `Endpoint ${endpoint.id} is archived; restore it (PATCH /endpoints/${endpoint.id} {"archived": false}) to ${kind} it.`,
    );
  }
  return profile;
}

/**
 * Queues the first job of a launch already recorded. When Redis does not take it in time, the launch
 * is ended as failed (`recordFailed` with the reason), so a retry makes a new one instead of this one
 * starting late as well, and the request answers 503.
 */
export async function enqueueOrFail(
  kind: LaunchKind,
  id: string,
  enqueue: () => Promise<unknown>,
  recordFailed: (error: string) => Promise<unknown>,
): Promise<void> {
  try {
    await withTimeout(enqueue(), ENQUEUE_TIMEOUT_MS, 'Redis');
  } catch (error) {
    logger.error(`${kind} ${id} not queued`, error instanceof Error ? error.stack : String(error));
    await recordFailed('Could not be queued: Redis did not accept the job.');
    throw new ServiceUnavailableException(
      `The ${kind} queue (Redis) is unavailable, so ${kind} ${id} was recorded as failed; retry once /health shows redis up.`,
    );
  }
}
