import { Body, Controller, Delete, Get, Param, Patch, Post, Query, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { Access } from '../auth/access.decorator';
import { PageOf } from '../common/pagination';
import { uuidParam } from '../common/params';
import { ErrorBody } from '../errors/error-body';
import {
  CreateEndpointDto,
  DeleteEndpointQueryDto,
  EndpointDto,
  ListEndpointsQueryDto,
  UpdateEndpointDto,
} from './dto/endpoint.dto';
import { EndpointsService } from './endpoints.service';

const EndpointPage = PageOf(EndpointDto);

@ApiTags('endpoints')
@ApiBadRequestResponse({ type: ErrorBody })
@Controller('endpoints')
export class EndpointsController {
  constructor(private readonly endpoints: EndpointsService) {}

  @Post()
  @Access('write')
  @ApiConflictResponse({ type: ErrorBody, description: 'The name is taken.' })
  @ApiCreatedResponse({ type: EndpointDto })
  create(@Body() input: CreateEndpointDto): Promise<EndpointDto> {
    return this.endpoints.create(input);
  }

  @Get()
  @Access('read')
  @ApiOkResponse({ type: EndpointPage, description: 'Newest first; archived endpoints only on request.' })
  list(@Query() query: ListEndpointsQueryDto) {
    return this.endpoints.list(query);
  }

  @Get(':id')
  @Access('read')
  @ApiNotFoundResponse({ type: ErrorBody })
  @ApiOkResponse({ type: EndpointDto })
  get(@Param('id', uuidParam('id')) id: string): Promise<EndpointDto> {
    return this.endpoints.get(id);
  }

  @Patch(':id')
  @Access('write')
  @ApiNotFoundResponse({ type: ErrorBody })
  @ApiConflictResponse({ type: ErrorBody, description: 'The new name is taken.' })
  @ApiOkResponse({ type: EndpointDto })
  update(@Param('id', uuidParam('id')) id: string, @Body() input: UpdateEndpointDto): Promise<EndpointDto> {
    return this.endpoints.update(id, input);
  }

  @Delete(':id')
  @Access('write')
  @ApiNoContentResponse({ description: 'Deleted, with its configurations and profiles.' })
  @ApiOkResponse({ type: EndpointDto, description: 'Archived (with `?archive=true`).' })
  @ApiNotFoundResponse({ type: ErrorBody })
  @ApiConflictResponse({ type: ErrorBody, description: 'Runs reference the endpoint: archive it instead.' })
  async remove(
    @Param('id', uuidParam('id')) id: string,
    @Query() query: DeleteEndpointQueryDto,
    @Res() response: Response,
  ): Promise<void> {
    const archived = await this.endpoints.remove(id, query.archive ?? false);
    if (archived) response.status(200).json(archived);
    else response.status(204).end();
  }
}
