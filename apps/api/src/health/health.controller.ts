import { Controller, Get, Res, ServiceUnavailableException } from '@nestjs/common';
import { ApiOkResponse, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { HealthCheck, type HealthCheckResult, HealthCheckService } from '@nestjs/terminus';
import type { Response } from 'express';
import { Access } from '../auth/access.decorator';
import { DependenciesHealth } from './dependencies.health';
import { HealthDto } from './dto/health.dto';

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly dependencies: DependenciesHealth,
  ) {}

  @Get()
  @Access('public')
  @HealthCheck()
  @ApiOkResponse({ type: HealthDto, description: 'Postgres and Redis answer.' })
  @ApiServiceUnavailableResponse({
    type: HealthDto,
    description:
      'Postgres or Redis does not answer; `error` says which. This body is the health report, not the error body of other routes.',
  })
  async check(@Res({ passthrough: true }) response: Response): Promise<HealthCheckResult> {
    try {
      return await this.health.check([() => this.dependencies.database(), () => this.dependencies.redis()]);
    } catch (error) {
      // Terminus reports "down" as a 503 exception; its body is the answer, not an error to map.
      if (!(error instanceof ServiceUnavailableException)) throw error;
      response.status(503);
      return error.getResponse() as HealthCheckResult;
    }
  }
}
