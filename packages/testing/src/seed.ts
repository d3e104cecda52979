import { randomUUID } from 'node:crypto';
import { encryptHeaders } from '@teapot/config';
import { isFinalRunStatus } from '@teapot/contracts';
import { createQueuedRun, type Prisma, type Run } from '@teapot/db';
import { waitFor } from '@teapot/testing-base';
import type { TestWorld } from './world';

export interface EndpointSeed {
  name?: string;
  baseUrl: string;
  model?: string;
  /** Stored encrypted, as the API stores them; the worker must decrypt them to send them. */
  headers?: Record<string, string>;
  /** The server's metrics URL, scraped while runs measure, and its headers (stored encrypted too). */
  metricsUrl?: string;
  metricsHeaders?: Record<string, string>;
}

/** An endpoint with one serving configuration (version 1), as registered through the API. */
export async function seedEndpoint(world: TestWorld, seed: EndpointSeed): Promise<string> {
  const endpoint = await world.db.prisma.endpoint.create({
    data: {
      name: seed.name ?? `endpoint-${randomUUID()}`,
      baseUrl: seed.baseUrl,
      apiKind: 'chat',
      model: seed.model ?? 'llama-8b',
      authHeadersEnc: seed.headers ? new Uint8Array(encryptHeaders(seed.headers, world.secretKey)) : null,
      authHeaderNames: Object.keys(seed.headers ?? {}),
      metricsUrl: seed.metricsUrl ?? null,
      metricsHeadersEnc: seed.metricsHeaders
        ? new Uint8Array(encryptHeaders(seed.metricsHeaders, world.secretKey))
        : null,
      metricsHeaderNames: Object.keys(seed.metricsHeaders ?? {}),
    },
  });
  await world.db.prisma.servingConfig.create({
    data: {
      endpointId: endpoint.id,
      version: 1,
      engine: 'teapot-simulator',
      gpuModel: 'h100-sxm',
      weightQuant: 'fp16',
    },
  });
  return endpoint.id;
}

export interface ProfileSeed {
  requests?: number;
  concurrency?: number;
  inputTokens?: number;
  outputTokens?: number;
  intervalS?: number | null;
  cron?: string | null;
  jitterS?: number;
  enabled?: boolean;
  stallTimeoutMs?: number;
  timeoutMs?: number;
  /** A workload in place of the synthetic one (inputTokens and outputTokens then unused). */
  workload?: Record<string, unknown>;
  /** A load in place of the closed loop of `concurrency`. */
  load?: Record<string, unknown>;
}

/** A synthetic closed-loop profile (unscheduled unless `intervalS` or `cron` is given). */
export async function seedProfile(
  world: TestWorld,
  endpointId: string,
  seed: ProfileSeed = {},
): Promise<string> {
  const profile = await world.db.prisma.profile.create({
    data: {
      name: `profile-${randomUUID()}`,
      endpointId,
      workload: (seed.workload as Prisma.InputJsonObject | undefined) ?? {
        kind: 'synthetic',
        inputTokens: seed.inputTokens ?? 32,
        outputTokens: seed.outputTokens ?? 20,
      },
      load: (seed.load as Prisma.InputJsonObject | undefined) ?? {
        kind: 'closed',
        concurrency: seed.concurrency ?? 2,
      },
      requestCount: seed.requests ?? 10,
      seed: 7,
      timeoutMs: seed.timeoutMs ?? 20_000,
      stallTimeoutMs: seed.stallTimeoutMs ?? 2_000,
      scheduleIntervalS: seed.intervalS === undefined ? null : seed.intervalS,
      scheduleCron: seed.cron ?? null,
      scheduleJitterS: seed.jitterS ?? 0,
      enabled: seed.enabled ?? true,
    },
  });
  return profile.id;
}

/** A queued manual run, made by the code the API queues one with; enqueueing its job is the caller's. */
export async function seedManualRun(world: TestWorld, profileId: string): Promise<string> {
  const profile = await world.db.prisma.profile.findUniqueOrThrow({ where: { id: profileId } });
  return (await createQueuedRun(world.db.prisma, profile, 'manual')).id;
}

/** The run's row once it reached a final status. */
export function waitForRunToFinish(world: TestWorld, runId: string, timeoutMs = 30_000): Promise<Run> {
  return waitFor(
    `run ${runId} to finish`,
    async () => {
      const row = await world.db.prisma.run.findUniqueOrThrow({ where: { id: runId } });
      return isFinalRunStatus(row.status) ? row : null;
    },
    timeoutMs,
  );
}
