import { ConflictException, Injectable, Logger, ServiceUnavailableException } from '@nestjs/common';
import { HEADLINES, type ClientDiagnostics, type HeadlineFigures } from '@teapot/contracts';
import { createQueuedRun, type Prisma, type Run, type ServingConfig } from '@teapot/db';
import { RunQueueProducer } from '@teapot/jobs';
import type { ClientHealth, RunSummary } from '@teapot/measure';
import { timeParameter } from '../common/parse';
import { keysetPage, type Page } from '../common/pagination';
import {
  MissingReferenceException,
  RequestValidationException,
} from '../errors/request-validation.exception';
import { withTimeout } from '../common/timeout';
import { PrismaService } from '../prisma/prisma.service';
import type { ListRunsQueryDto, RunDetailDto, RunDto } from './dto/run.dto';
import type { ServerDiagnosticsDto } from './dto/server-metrics.dto';
import { orNotFound } from '../common/not-found';
import { pick } from '../common/pick';

const ENQUEUE_TIMEOUT_MS = 2_000;

@Injectable()
export class RunsService {
  private readonly logger = new Logger(RunsService.name);

  constructor(
    private readonly prisma: PrismaService,
    private readonly queue: RunQueueProducer,
  ) {}

  /** Queues a run of the profile with the endpoint's live configuration; the worker takes it from there. */
  async trigger(profileId: string): Promise<RunDetailDto> {
    const profile = await this.prisma.profile.findUnique({
      where: { id: profileId },
      include: { endpoint: true },
    });
    if (!profile) throw new MissingReferenceException([{ field: 'profileId', problem: 'names no profile' }]);
    if (profile.sweep !== null) {
      // A run is one load; a sweep is many runs with an outcome of its own, so it has its own resource.
      throw new RequestValidationException([
        {
          field: 'profileId',
          problem: `names a sweep profile: start a sweep of it with POST /sweeps {"profileId": "${profileId}"}`,
        },
      ]);
    }
    if (profile.endpoint.archivedAt) {
      throw new ConflictException(
        `Endpoint ${profile.endpointId} is archived; restore it (PATCH /endpoints/${profile.endpointId} {"archived": false}) to run it.`,
      );
    }
    const { endpoint: _endpoint, ...row } = profile;
    const queued = await createQueuedRun(this.prisma, row, 'manual');
    const run = { ...queued, config: await this.configOf(queued) };
    try {
      await withTimeout(this.queue.enqueueRun(run.id), ENQUEUE_TIMEOUT_MS, 'Redis');
    } catch (error) {
      this.logger.error(error);
      await this.prisma.run.update({
        where: { id: run.id },
        data: {
          status: 'failed',
          finishedAt: new Date(),
          error: 'Could not be queued: Redis did not accept the job.',
          errorClass: 'internal',
        },
      });
      throw new ServiceUnavailableException(
        `The run queue (Redis) is unavailable, so run ${run.id} was recorded as failed; retry once /health shows redis up.`,
      );
    }
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
