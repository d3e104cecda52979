import { applyDecorators, Body, HttpCode, Post, Query, type Type } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiConflictResponse,
  ApiNotFoundResponse,
  ApiServiceUnavailableResponse,
} from '@nestjs/swagger';
import { Access } from '../auth/access.decorator';
import { GetRoute, IdParam, ListRoute, ResourceController } from '../common/routes';
import { ErrorBody } from '../errors/error-body';
import { ListSweepsQueryDto, StartSweepDto, SweepDetailDto, SweepDto } from './dto/sweep.dto';
import { SweepsService } from './sweeps.service';

/** `POST` that queues work (write scope): 202, the worker does it. */
function QueueRoute(type: Type, description: string): MethodDecorator {
  return applyDecorators(Post(), Access('write'), HttpCode(202), ApiAcceptedResponse({ type, description }));
}

@ResourceController('sweeps', 'sweeps')
export class SweepsController {
  constructor(private readonly sweeps: SweepsService) {}

  @QueueRoute(SweepDetailDto, 'Queued; the worker measures its points one after another (GET /sweeps/{id}).')
  @ApiNotFoundResponse({ type: ErrorBody, description: 'profileId names no profile.' })
  @ApiConflictResponse({ type: ErrorBody, description: 'The endpoint is archived.' })
  @ApiServiceUnavailableResponse({
    type: ErrorBody,
    description: 'Redis is down; the sweep is recorded as failed.',
  })
  start(@Body() input: StartSweepDto): Promise<SweepDetailDto> {
    return this.sweeps.start(input.profileId);
  }

  @ListRoute(SweepDto, 'Newest first (by queuedAt).')
  list(@Query() query: ListSweepsQueryDto) {
    return this.sweeps.list(query);
  }

  @GetRoute(
    SweepDetailDto,
    ':id',
    'The sweep, its points in measuring order with their figures, and the frontier.',
  )
  get(@IdParam() id: string): Promise<SweepDetailDto> {
    return this.sweeps.get(id);
  }
}
