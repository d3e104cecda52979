import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { Access } from '../auth/access.decorator';
import { PageOf } from '../common/pagination';
import { uuidParam } from '../common/params';
import { ErrorBody } from '../errors/error-body';
import { ListRunsQueryDto, RunDetailDto, RunDto, TriggerRunDto } from './dto/run.dto';
import { RunsService } from './runs.service';

const RunPage = PageOf(RunDto);

@ApiTags('runs')
@ApiBadRequestResponse({ type: ErrorBody })
@Controller('runs')
export class RunsController {
  constructor(private readonly runs: RunsService) {}

  @Post()
  @Access('write')
  @ApiCreatedResponse({ type: RunDetailDto, description: 'Queued; the worker runs it.' })
  @ApiConflictResponse({ type: ErrorBody, description: 'The endpoint is archived.' })
  @ApiServiceUnavailableResponse({
    type: ErrorBody,
    description: 'Redis is down; the run is recorded as failed.',
  })
  trigger(@Body() input: TriggerRunDto): Promise<RunDetailDto> {
    return this.runs.trigger(input.profileId);
  }

  @Get()
  @Access('read')
  @ApiOkResponse({ type: RunPage, description: 'Newest first.' })
  list(@Query() query: ListRunsQueryDto) {
    return this.runs.list(query);
  }

  @Get(':id')
  @Access('read')
  @ApiNotFoundResponse({ type: ErrorBody })
  @ApiOkResponse({ type: RunDetailDto })
  get(@Param('id', uuidParam('id')) id: string): Promise<RunDetailDto> {
    return this.runs.get(id);
  }
}
