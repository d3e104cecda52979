import type { RunResult } from '@teapot/measure';
import type { Pool } from 'pg';
import type { PrismaClient } from '../generated/prisma/client';
import type { RunTrigger } from '../generated/prisma/enums';
import { persistRunResult, type PersistRunOptions } from '../run-writer';

/** A `Database` ({ prisma, pool }) or a pooled client (the API's PrismaService). */
export type SeedStore = { pool: Pool } & (
  { prisma: Pick<PrismaClient, 'run' | 'endpoint'> } | Pick<PrismaClient, 'run' | 'endpoint'>
);

function prismaOf(store: SeedStore): Pick<PrismaClient, 'run' | 'endpoint'> {
  return 'prisma' in store ? store.prisma : store;
}

export interface MeasuredRunSeed {
  endpointId: string;
  configId?: string;
  profileId?: string;
  deploymentId?: string;
  /** Default `schedule`. */
  trigger?: RunTrigger;
  startedAt: Date;
  /** Default `{}`: the readers under test do not look at it. */
  profileSnapshot?: object;
  /** A point of this sweep (the sweep row must exist). */
  sweep?: { id: string; index: number };
}

/**
 * A measured run stored as the worker stores one: the row created `running`, then `result` written
 * by the real run writer (persistRunResult). Returns the run's id.
 */
export async function storeMeasuredRun(
  store: SeedStore,
  seed: MeasuredRunSeed,
  result: RunResult,
  options?: PersistRunOptions,
): Promise<string> {
  const run = await prismaOf(store).run.create({
    data: {
      endpointId: seed.endpointId,
      configId: seed.configId,
      profileId: seed.profileId,
      deploymentId: seed.deploymentId,
      profileSnapshot: seed.profileSnapshot ?? {},
      trigger: seed.trigger ?? 'schedule',
      status: 'running',
      startedAt: seed.startedAt,
      sweepId: seed.sweep?.id,
      sweepIndex: seed.sweep?.index,
    },
  });
  await persistRunResult(store, run.id, result, options);
  return run.id;
}

/** An endpoint nothing will connect to (port 1), for tests that only read stored runs. */
export async function storeEndpoint(store: SeedStore, name = 'e'): Promise<string> {
  const endpoint = await prismaOf(store).endpoint.create({
    data: { name, baseUrl: 'http://127.0.0.1:1/v1', apiKind: 'chat', model: 'llama-8b' },
  });
  return endpoint.id;
}
