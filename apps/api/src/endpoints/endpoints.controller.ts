import { Body, Delete, Query, Res } from '@nestjs/common';
import {
  ApiConflictResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { Access } from '../auth/access.decorator';
import { CreateRoute, GetRoute, IdParam, ListRoute, ResourceController, UpdateRoute } from '../common/routes';
import { ErrorBody } from '../errors/error-body';
import {
  CreateEndpointDto,
  DeleteEndpointQueryDto,
  EndpointDto,
  ListEndpointsQueryDto,
  UpdateEndpointDto,
} from './dto/endpoint.dto';
import { EndpointsService } from './endpoints.service';

@ResourceController('endpoints', 'endpoints')
export class EndpointsController {
  constructor(private readonly endpoints: EndpointsService) {}

  @CreateRoute(EndpointDto)
  @ApiConflictResponse({ type: ErrorBody, description: 'The name is taken.' })
  create(@Body() input: CreateEndpointDto): Promise<EndpointDto> {
    return this.endpoints.create(input);
  }

  @ListRoute(EndpointDto, 'Newest first; archived endpoints only on request.')
  list(@Query() query: ListEndpointsQueryDto) {
    return this.endpoints.list(query);
  }

  @GetRoute(EndpointDto)
  get(@IdParam() id: string): Promise<EndpointDto> {
    return this.endpoints.get(id);
  }

  @UpdateRoute(EndpointDto)
  @ApiConflictResponse({ type: ErrorBody, description: 'The new name is taken.' })
  update(@IdParam() id: string, @Body() input: UpdateEndpointDto): Promise<EndpointDto> {
    return this.endpoints.update(id, input);
  }

  // Not DeleteRoute: archiving answers 200 with the endpoint, deleting 204.
  @Delete(':id')
  @Access('write')
  @ApiNoContentResponse({ description: 'Deleted, with its configurations and profiles.' })
  @ApiOkResponse({ type: EndpointDto, description: 'Archived (with `?archive=true`).' })
  @ApiNotFoundResponse({ type: ErrorBody })
  @ApiConflictResponse({ type: ErrorBody, description: 'Runs reference the endpoint: archive it instead.' })
  async remove(
    @IdParam() id: string,
    @Query() query: DeleteEndpointQueryDto,
    @Res() response: Response,
  ): Promise<void> {
    const archived = await this.endpoints.remove(id, query.archive ?? false);
    if (archived) response.status(200).json(archived);
    else response.status(204).end();
  }
}
