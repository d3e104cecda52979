import { Body, Controller, Delete, Get } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CreateRoute, IdParam } from '../common/routes';
import { ErrorBody } from '../errors/error-body';
import { Access } from './access.decorator';
import { ApiKeysService } from './api-keys.service';
import { ApiKeyDto, ApiKeyListDto, CreateApiKeyDto, CreatedApiKeyDto } from './dto/api-key.dto';

@ApiTags('api-keys')
@Controller('api-keys')
export class ApiKeysController {
  constructor(private readonly apiKeys: ApiKeysService) {}

  @CreateRoute(CreatedApiKeyDto, 'The key itself is in this response only.')
  @ApiBadRequestResponse({ type: ErrorBody })
  create(@Body() input: CreateApiKeyDto): Promise<CreatedApiKeyDto> {
    return this.apiKeys.create(input);
  }

  // Write scope: a read key (a dashboard, a scraper) has no business knowing which keys exist.
  @Get()
  @Access('write')
  @ApiOkResponse({ type: ApiKeyListDto })
  async list(): Promise<ApiKeyListDto> {
    return { items: await this.apiKeys.list() };
  }

  @Delete(':id')
  @Access('write')
  @ApiOkResponse({ type: ApiKeyDto, description: 'The key, now revoked. Revoking twice is harmless.' })
  @ApiNotFoundResponse({ type: ErrorBody })
  revoke(@IdParam() id: string): Promise<ApiKeyDto> {
    return this.apiKeys.revoke(id);
  }
}
