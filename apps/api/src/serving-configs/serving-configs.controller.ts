import { Body, Controller, Get } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { Access } from '../auth/access.decorator';
import { PositiveIntParam, positiveIntParamDoc } from '../common/params';
import { CreateRoute, IdParam } from '../common/routes';
import { ErrorBody } from '../errors/error-body';
import { CreateServingConfigDto, ServingConfigDto, ServingConfigListDto } from './dto/serving-config.dto';
import { ServingConfigsService } from './serving-configs.service';

/** Versions are only added: a run points at the version that was live, so history never changes. */
@ApiTags('serving configurations')
@ApiNotFoundResponse({ type: ErrorBody, description: 'No such endpoint or version.' })
@Controller('endpoints/:endpointId/configs')
export class ServingConfigsController {
  constructor(private readonly configs: ServingConfigsService) {}

  @CreateRoute(ServingConfigDto, 'The new version, live from now on.')
  @ApiBadRequestResponse({ type: ErrorBody })
  add(
    @IdParam('endpointId') endpointId: string,
    @Body() input: CreateServingConfigDto,
  ): Promise<ServingConfigDto> {
    return this.configs.add(endpointId, input);
  }

  @Get()
  @Access('read')
  @ApiOkResponse({ type: ServingConfigListDto })
  async list(@IdParam('endpointId') endpointId: string): Promise<ServingConfigListDto> {
    return { items: await this.configs.list(endpointId) };
  }

  @Get(':version')
  @Access('read')
  @ApiParam(positiveIntParamDoc('version'))
  @ApiOkResponse({ type: ServingConfigDto })
  get(
    @IdParam('endpointId') endpointId: string,
    @PositiveIntParam('version') version: number,
  ): Promise<ServingConfigDto> {
    return this.configs.get(endpointId, version);
  }
}
