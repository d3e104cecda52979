import { Body, Query } from '@nestjs/common';
import { ApiConflictResponse, ApiServiceUnavailableResponse } from '@nestjs/swagger';
import { CreateRoute, GetRoute, IdParam, ListRoute, ResourceController } from '../common/routes';
import { ErrorBody } from '../errors/error-body';
import { ListRunsQueryDto, RunDetailDto, RunDto, TriggerRunDto } from './dto/run.dto';
import { RunsService } from './runs.service';

@ResourceController('runs', 'runs')
export class RunsController {
  constructor(private readonly runs: RunsService) {}

  @CreateRoute(RunDetailDto, 'Queued; the worker runs it.')
  @ApiConflictResponse({ type: ErrorBody, description: 'The endpoint is archived.' })
  @ApiServiceUnavailableResponse({
    type: ErrorBody,
    description: 'Redis is down; the run is recorded as failed.',
  })
  trigger(@Body() input: TriggerRunDto): Promise<RunDetailDto> {
    return this.runs.trigger(input.profileId);
  }

  @ListRoute(RunDto, 'Newest first.')
  list(@Query() query: ListRunsQueryDto) {
    return this.runs.list(query);
  }

  @GetRoute(RunDetailDto)
  get(@IdParam() id: string): Promise<RunDetailDto> {
    return this.runs.get(id);
  }
}
