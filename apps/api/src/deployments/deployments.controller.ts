import { Body, Query } from '@nestjs/common';
import { ApiConflictResponse } from '@nestjs/swagger';
import { CreateRoute, GetRoute, IdParam, ListRoute, ResourceController } from '../common/routes';
import { ErrorBody } from '../errors/error-body';
import { CreateDeploymentDto, DeploymentDto, ListDeploymentsQueryDto } from './dto/deployment.dto';
import { DeploymentsService } from './deployments.service';

/**
 * A deployment tells teapot an endpoint changed. teapot runs the endpoint's profiles after it,
 * compares them with the runs before it and stores the verdict on the deployment.
 */
@ResourceController('deployments', 'deployments')
export class DeploymentsController {
  constructor(private readonly deployments: DeploymentsService) {}

  @CreateRoute(
    DeploymentDto,
    'Recorded with its post-deployment runs queued; `verdict` is `pending` until they finish.',
  )
  @ApiConflictResponse({ type: ErrorBody, description: 'The endpoint is archived.' })
  create(@Body() input: CreateDeploymentDto): Promise<DeploymentDto> {
    return this.deployments.create(input);
  }

  @ListRoute(DeploymentDto, 'Latest effectiveAt first.')
  list(@Query() query: ListDeploymentsQueryDto) {
    return this.deployments.list(query);
  }

  @GetRoute(DeploymentDto)
  get(@IdParam() id: string): Promise<DeploymentDto> {
    return this.deployments.get(id);
  }
}
