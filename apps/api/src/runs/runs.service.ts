import { Injectable } from '@nestjs/common';
import { HEADLINES, type ClientDiagnostics, type HeadlineFigures } from '@teapot/contracts';
import { createQueuedRun, type Prisma, type Run, type ServingConfig } from '@teapot/db';
import { RunQueueProducer } from '@teapot/jobs';
import type { ClientHealth, RunSummary } from '@teapot/measure';
import { timeParameter } from '../common/parse';
import { keysetPage, type Page } from '../common/pagination';
import { enqueueOrFail, launchableProfile } from '../common/launch';
import { PrismaService } from '../prisma/prisma.service';
import type { ListRunsQueryDto, RunDetailDto, RunDto } from './dto/run.dto';
import type { ServerDiagnosticsDto } from './dto/server-metrics.dto';
import { orNotFound } from '../common/not-found';
import { pick } from '../common/pick';

@Injectable()
export class RunsService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly queue: RunQueueProducer,
  ) {}

  /** Queues a run of the profile with the endpoint's live configuration; the worker takes it from there. */
  async trigger(profileId: string): Promise<RunDetailDto> {
    const profile = await launchableProfile(this.prisma, profileId, 'run');
    const queued = await createQueuedRun(this.prisma, profile, 'manual');
    const run = { ...queued, config: await this.configOf(queued) };
    await enqueueOrFail(
      'run',
      run.id,
      () => this.queue.enqueueRun(run.id),
      (error) =>
        this.prisma.run.update({
          where: { id: run.id },
          data: { status: 'failed', finishedAt: new Date(), error, errorClass: 'internal' },
        }),
    );
    return toRunDetail(run);
  }

  private configOf(run: Run): Promise<ServingConfig | null> {
    return run.configId
      ? this.prisma.servingConfig.findUnique({ where: { id: run.configId } })
      : Promise.resolve(null);
  }

  list(query: ListRunsQueryDto): Promise<Page<RunDto>> {
    const queuedAt: Prisma.DateTimeFilter = {
      ...(query.from ? { gte: timeParameter(query.from, 'from') } : {}),
      ...(query.to ? { lt: timeParameter(query.to, 'to') } : {}),
    };
    const where: Prisma.RunWhereInput = {
      ...(query.endpointId ? { endpointId: query.endpointId } : {}),
      ...(query.profileId ? { profileId: query.profileId } : {}),
      ...(query.sweepId ? { sweepId: query.sweepId } : {}),
      ...(query.status ? { status: { in: query.status } } : {}),
      ...(query.from || query.to ? { queuedAt } : {}),
    };
    return keysetPage('queuedAt', query, where, (args) => this.prisma.run.findMany(args), toRunDto);
  }

  async get(id: string): Promise<RunDetailDto> {
    const row = orNotFound(
      await this.prisma.run.findUnique({ where: { id }, include: { config: true } }),
      `No run ${id}.`,
    );
    return toRunDetail(row);
  }

  /** Throws 404 unless the run exists; the request readers need nothing else of it. */
  async requireRun(id: string): Promise<void> {
    const row = await this.prisma.run.findUnique({ where: { id }, select: { id: true } });
    orNotFound(row, `No run ${id}.`);
  }
}

function headlinesOf(run: Run): HeadlineFigures {
  return Object.fromEntries(HEADLINES.map((h) => [h.field, run[h.field]])) as HeadlineFigures;
}

// prettier-ignore
const RUN_FIELDS = [
  'id', 'endpointId', 'configId', 'profileId', 'sweepId', 'sweepIndex', 'status', 'trigger', 'queuedAt',
  'startedAt', 'finishedAt', 'attempts', 'error', 'errorClass', 'requestsSucceeded', 'requestsFailed',
  'requestsIncomplete', 'errorCounts', 'clientSaturated', 'transport', 'measureVersion',
] as const;

function toRunDto(run: Run): RunDto {
  return {
    ...pick(run, RUN_FIELDS),
    durationUs: run.durationUs === null ? null : Number(run.durationUs),
    serverDiagnostics: run.serverDiagnostics as ServerDiagnosticsDto | null,
    ...headlinesOf(run),
  };
}

function toRunDetail(run: Run & { config: ServingConfig | null }): RunDetailDto {
  return {
    ...toRunDto(run),
    summary: run.summary as RunSummary | null,
    clientHealth: run.clientHealth as ClientHealth | null,
    clientDiagnostics: run.clientDiagnostics as ClientDiagnostics | null,
    profileSnapshot: run.profileSnapshot,
    config: run.config,
    wallAnchor: run.wallAnchor,
    monotonicAnchorNs: run.monotonicAnchorNs === null ? null : run.monotonicAnchorNs.toString(),
    streamOptionsRequested: run.streamOptionsRequested,
    streamOptionsRejected: run.streamOptionsRejected,
    eventLoopDelayP99Ms: run.eventLoopDelayP99Ms,
    eventLoopDelayMaxMs: run.eventLoopDelayMaxMs,
    workerId: run.workerId,
  };
}
