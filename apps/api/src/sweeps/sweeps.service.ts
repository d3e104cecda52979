import { Injectable } from '@nestjs/common';
import { createQueuedSweep, SweepStore, type Prisma } from '@teapot/db';
import { SweepQueueProducer } from '@teapot/jobs';
import { orNotFound } from '../common/not-found';
import { keysetPage, type Page } from '../common/pagination';
import { enqueueOrFail, launchableProfile } from '../common/launch';
import { PrismaService } from '../prisma/prisma.service';
import type { ListSweepsQueryDto, SweepDetailDto, SweepDto } from './dto/sweep.dto';
import { toSweepDetail, toSweepDto } from './sweep-view';

@Injectable()
export class SweepsService {
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
    const profile = await launchableProfile(this.prisma, profileId, 'sweep');
    const sweep = await createQueuedSweep(this.prisma, profile, 'manual');
    await enqueueOrFail(
      'sweep',
      sweep.id,
      () => this.queue.enqueueAdvance(sweep.id, 0),
      (error) =>
        this.store.finish(sweep.id, { status: 'failed', stopReason: null, error, errorClass: 'internal' }),
    );
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
