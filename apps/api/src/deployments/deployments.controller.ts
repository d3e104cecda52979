import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiTags,
} from '@nestjs/swagger';
import { Access } from '../auth/access.decorator';
import { PageOf } from '../common/pagination';
import { uuidParam } from '../common/params';
import { ErrorBody } from '../errors/error-body';
import { CreateDeploymentDto, DeploymentDto, ListDeploymentsQueryDto } from './dto/deployment.dto';
import { DeploymentsService } from './deployments.service';

const DeploymentPage = PageOf(DeploymentDto);

/**
 * A deployment tells teapot an endpoint changed. teapot runs the endpoint's profiles after it,
 * compares them with the runs before it and stores the verdict on the deployment.
 */
@ApiTags('deployments')
@ApiBadRequestResponse({ type: ErrorBody })
@Controller('deployments')
export class DeploymentsController {
  constructor(private readonly deployments: DeploymentsService) {}

  @Post()
  @Access('write')
  @ApiCreatedResponse({
    type: DeploymentDto,
    description: 'Recorded with its post-deployment runs queued; `verdict` is `pending` until they finish.',
  })
  @ApiConflictResponse({ type: ErrorBody, description: 'The endpoint is archived.' })
  create(@Body() input: CreateDeploymentDto): Promise<DeploymentDto> {
    return this.deployments.create(input);
  }

  @Get()
  @Access('read')
  @ApiOkResponse({ type: DeploymentPage, description: 'Latest effectiveAt first.' })
  list(@Query() query: ListDeploymentsQueryDto) {
    return this.deployments.list(query);
  }

  @Get(':id')
  @Access('read')
  @ApiNotFoundResponse({ type: ErrorBody })
  @ApiOkResponse({ type: DeploymentDto })
  get(@Param('id', uuidParam('id')) id: string): Promise<DeploymentDto> {
    return this.deployments.get(id);
  }
}
