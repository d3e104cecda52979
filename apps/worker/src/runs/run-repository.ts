import { Injectable } from '@nestjs/common';
import { MEASURED_RUN_STATUSES, UNFINISHED_RUN_STATUSES, type RunErrorClass } from '@teapot/contracts';
import {
  AssetStore,
  persistRunResult,
  recordRunFailed,
  type RunStatus,
  type ServerMetricsRecord,
} from '@teapot/db';
import type { RunResult } from '@teapot/measure';
import { PrismaService } from '../prisma/prisma.service';
import { TokenizerAssets } from './tokenizer-assets';

export interface RunToProcess {
  id: string;
  status: RunStatus;
  trigger: 'schedule' | 'manual' | 'deployment';
  profileId: string | null;
  slotKey: string | null;
  queuedAt: Date;
  attempts: number;
  workerId: string | null;
  profileSnapshot: unknown;
  /** The sweep this run is a point of (its spec as queued), and the point's place; null otherwise. */
  sweepId: string | null;
  sweepIndex: number | null;
  sweep: { spec: unknown } | null;
  /** The serving configuration: its version and engine (exported figures), GPUs and their price (sweep points). */
  config: {
    version: number;
    engine: string | null;
    gpuCount: number | null;
    tensorParallel: number | null;
    pipelineParallel: number | null;
    usdPerGpuHour: number | null;
  } | null;
  endpoint: {
    id: string;
    name: string;
    baseUrl: string;
    apiKind: 'chat' | 'completions';
    model: string;
    authHeadersEnc: Uint8Array | null;
    /** Scraped while the run measures (run-server-metrics.ts); null: not scraped. */
    metricsUrl: string | null;
    metricsHeadersEnc: Uint8Array | null;
    archivedAt: Date | null;
  };
}

/** The worker's reads and guarded writes of runs. Every write names the attempt it belongs to. */
@Injectable()
export class RunRepository {
  /** Uploaded tokenizers this process has read, kept for the next runs of the same model. */
  readonly tokenizers: TokenizerAssets;

  constructor(private readonly prisma: PrismaService) {
    this.tokenizers = new TokenizerAssets(async (sha256) => {
      const store = new AssetStore(this.prisma);
      const meta = await store.meta(sha256);
      const bytes = meta === null ? null : await store.bytes(sha256);
      return meta === null || bytes === null ? null : { kind: meta.kind, bytes };
    });
  }

  /** An uploaded file's bytes (a dataset a profile names), or null. */
  assetBytes(sha256: string): Promise<Buffer | null> {
    return new AssetStore(this.prisma).bytes(sha256);
  }

  load(runId: string): Promise<RunToProcess | null> {
    return this.prisma.run.findUnique({
      where: { id: runId },
      select: {
        id: true,
        status: true,
        trigger: true,
        profileId: true,
        slotKey: true,
        queuedAt: true,
        attempts: true,
        workerId: true,
        profileSnapshot: true,
        sweepId: true,
        sweepIndex: true,
        sweep: { select: { spec: true } },
        config: {
          select: {
            version: true,
            engine: true,
            gpuCount: true,
            tensorParallel: true,
            pipelineParallel: true,
            usdPerGpuHour: true,
          },
        },
        endpoint: {
          select: {
            id: true,
            name: true,
            baseUrl: true,
            apiKind: true,
            model: true,
            authHeadersEnc: true,
            metricsUrl: true,
            metricsHeadersEnc: true,
            archivedAt: true,
          },
        },
      },
    });
  }

  /**
   * Takes the run for one attempt: queued -> running, or running (its previous worker died) ->
   * running again, with attempts + 1. Null when another worker changed the run first.
   */
  async claim(run: RunToProcess, workerId: string): Promise<number | null> {
    const attempt = run.attempts + 1;
    const { count } = await this.prisma.run.updateMany({
      where: { id: run.id, attempts: run.attempts, status: { in: [...UNFINISHED_RUN_STATUSES] } },
      data: {
        status: 'running',
        attempts: attempt,
        workerId,
        startedAt: new Date(),
        finishedAt: null,
        error: null,
      },
    });
    return count === 1 ? attempt : null;
  }

  /** How long the profile's latest measured runs (not sweep points) took, ms, newest first. */
  async recentDurationsMs(profileId: string, limit: number): Promise<number[]> {
    const rows = await this.prisma.run.findMany({
      where: {
        profileId,
        sweepId: null,
        status: { in: [...MEASURED_RUN_STATUSES] },
        durationUs: { not: null },
      },
      orderBy: { queuedAt: 'desc' },
      take: limit,
      select: { durationUs: true },
    });
    return rows.map((row) => Number(row.durationUs) / 1000);
  }

  /** Ends a run that never measured (skipped, invalid, endpoint gone); a failed one writes `run.failed` with it. */
  async endUnmeasured(
    run: Pick<RunToProcess, 'id' | 'attempts'>,
    status: 'aborted' | 'failed',
    reason: string,
    errorClass: Exclude<RunErrorClass, 'endpoint'>,
  ): Promise<boolean> {
    const finishedAt = new Date();
    return this.prisma.$transaction(async (tx) => {
      const { count } = await tx.run.updateMany({
        where: { id: run.id, attempts: run.attempts, status: { in: [...UNFINISHED_RUN_STATUSES] } },
        data: { status, error: reason, errorClass, finishedAt },
      });
      if (count !== 1) return false;
      // A run that could not be measured failed as much as one whose requests all did: subscribers hear of it.
      if (status === 'failed') {
        const row = await tx.run.findUniqueOrThrow({
          where: { id: run.id },
          select: { endpointId: true, profileId: true, trigger: true },
        });
        await recordRunFailed(tx, { id: run.id, ...row, error: reason, errorClass, finishedAt });
      }
      return true;
    });
  }

  /**
   * Writes a measured run with its final status and reason (persistRunResult: one transaction,
   * idempotent, so a retried write never duplicates). Null, and nothing written, when a newer
   * attempt has taken the run over meanwhile.
   */
  async persist(
    runId: string,
    attempt: number,
    result: RunResult,
    error: string | null,
    extra: { sweepPoint?: object; errorClass?: RunErrorClass; serverMetrics?: ServerMetricsRecord } = {},
  ): Promise<RunStatus | null> {
    const { sweepPoint, errorClass, serverMetrics } = extra;
    // The attempt guard is checked inside the write's transaction: no window for a takeover to slip in.
    const { written, status } = await persistRunResult(this.prisma, runId, result, {
      error,
      attempt,
      ...(errorClass ? { errorClass } : {}),
      ...(sweepPoint ? { sweepPoint } : {}),
      ...(serverMetrics ? { serverMetrics } : {}),
    });
    return written ? status : null;
  }
}
