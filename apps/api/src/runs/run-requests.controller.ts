import { Controller, Get, Logger, Query, StreamableFile } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiProduces,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { Access } from '../auth/access.decorator';
import { IdParam } from '../common/routes';
import { toErrorBody } from '../errors/api-error.filter';
import { ErrorBody } from '../errors/error-body';
import { ExportQueryDto, RunRequestPageDto, RunRequestsQueryDto } from './dto/run-request.dto';
import { RunRequestsService } from './run-requests.service';
import { RunsService } from './runs.service';

const CONTENT_TYPES = { ndjson: 'application/x-ndjson', csv: 'text/csv; charset=utf-8' } as const;

@ApiTags('runs')
@ApiBadRequestResponse({ type: ErrorBody })
@ApiNotFoundResponse({ type: ErrorBody, description: 'No such run.' })
@Controller('runs/:id/requests')
export class RunRequestsController {
  private readonly logger = new Logger(RunRequestsController.name);

  constructor(
    private readonly runs: RunsService,
    private readonly requests: RunRequestsService,
  ) {}

  @Get()
  @Access('read')
  @ApiOkResponse({
    type: RunRequestPageDto,
    description: 'Per-request records with per-token timings, in pages.',
  })
  async page(@IdParam() id: string, @Query() query: RunRequestsQueryDto): Promise<RunRequestPageDto> {
    await this.runs.requireRun(id);
    return this.requests.page(id, query.cursor ?? 0, query.limit);
  }

  @Get('export')
  @Access('read')
  @ApiProduces(CONTENT_TYPES.ndjson, CONTENT_TYPES.csv)
  @ApiOkResponse({
    description:
      'Every request, streamed: NDJSON (one raw record per line) or CSV (one row per chunk). For runs too large for one response.',
  })
  async export(@IdParam() id: string, @Query() query: ExportQueryDto): Promise<StreamableFile> {
    await this.runs.requireRun(id);
    const file = new StreamableFile(this.requests.export(id, query.format), {
      type: CONTENT_TYPES[query.format],
      disposition: `attachment; filename="run-${id}.${query.format}"`,
    });
    return file.setErrorHandler((error, response) => {
      this.logger.error(error);
      const res = response as unknown as Response;
      // Once bytes are out, a status can no longer say so: cut the stream so it reads as truncated.
      if (res.headersSent) res.destroy();
      else res.status(500).json(toErrorBody(error));
    });
  }
}
