import { ConflictException, Injectable, Logger, ServiceUnavailableException } from '@nestjs/common';
import { createQueuedSweep, SweepStore, type Prisma } from '@teapot/db';
import { SweepQueueProducer } from '@teapot/jobs';
import { orNotFound } from '../common/not-found';
import { keysetPage, type Page } from '../common/pagination';
import { withTimeout } from '../common/timeout';
import {
  MissingReferenceException,
  RequestValidationException,
} from '../errors/request-validation.exception';
import { PrismaService } from '../prisma/prisma.service';
import type { ListSweepsQueryDto, SweepDetailDto, SweepDto } from './dto/sweep.dto';
import { toSweepDetail, toSweepDto } from './sweep-view';

const ENQUEUE_TIMEOUT_MS = 2_000;

@Injectable()
export class SweepsService {
  private readonly logger = new Logger(SweepsService.name);
  private readonly store: SweepStore;

  constructor(
    private readonly prisma: PrismaService,
    private readonly queue: SweepQueueProducer,
  ) {
    this.store = new SweepStore(prisma);
  }

  /**
   * Queues a sweep of the profile with the endpoint's live configuration and its first advance job;
   * the worker measures the points one after another from there.
   */
  async start(profileId: string): Promise<SweepDetailDto> {
    const profile = await this.prisma.profile.findUnique({
      where: { id: profileId },
      include: { endpoint: true },
    });
    if (!profile) throw new MissingReferenceException([{ field: 'profileId', problem: 'names no profile' }]);
    if (profile.sweep === null) {
      throw new RequestValidationException([
        {
          field: 'profileId',
          problem: `names a single-load profile (no sweep set): run it with POST /runs, or PATCH /profiles/${profileId} a sweep first`,
        },
      ]);
    }
    if (profile.endpoint.archivedAt) {
      throw new ConflictException(
        `Endpoint ${profile.endpointId} is archived; restore it (PATCH /endpoints/${profile.endpointId} {"archived": false}) to sweep it.`,
      );
    }
    const { endpoint: _endpoint, ...row } = profile;
    const sweep = await createQueuedSweep(this.prisma, row, 'manual');
    try {
      await withTimeout(this.queue.enqueueAdvance(sweep.id, 0), ENQUEUE_TIMEOUT_MS, 'Redis');
    } catch (error) {
      this.logger.error(error);
      // As POST /runs: ended, so a retry makes a new sweep instead of this one starting late as well.
      await this.store.finish(sweep.id, {
        status: 'failed',
        stopReason: null,
        error: 'Could not be queued: Redis did not accept the job.',
        errorClass: 'internal',
      });
      throw new ServiceUnavailableException(
        `The sweep queue (Redis) is unavailable, so sweep ${sweep.id} was recorded as failed; retry once /health shows redis up.`,
      );
    }
    return this.get(sweep.id);
  }

  list(query: ListSweepsQueryDto): Promise<Page<SweepDto>> {
    const where: Prisma.SweepWhereInput = {
      ...(query.endpointId ? { endpointId: query.endpointId } : {}),
      ...(query.profileId ? { profileId: query.profileId } : {}),
      ...(query.status ? { status: { in: query.status } } : {}),
    };
    return keysetPage('queuedAt', query, where, (args) => this.prisma.sweep.findMany(args), toSweepDto);
  }

  async get(id: string): Promise<SweepDetailDto> {
    return toSweepDetail(orNotFound(await this.store.withPoints(id), `No sweep ${id}.`));
  }
}
