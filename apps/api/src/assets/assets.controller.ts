import { Body, Get, Headers, Param, Post, Query, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiUnsupportedMediaTypeResponse,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { Access } from '../auth/access.decorator';
import { ResourceController } from '../common/routes';
import { ErrorBody } from '../errors/error-body';
import { AssetsService } from './assets.service';
import {
  ASSET_BODY_TYPES,
  ASSET_LIMIT_BYTES,
  AssetDto,
  EXAMPLE_TRACE,
  UploadAssetQueryDto,
  UploadedAssetDto,
} from './dto/asset.dto';

@ResourceController('assets', 'assets')
export class AssetsController {
  constructor(private readonly assets: AssetsService) {}

  @Post()
  @Access('write')
  @ApiOperation({
    summary: 'Upload a dataset or a trace, stored once by the SHA-256 of its bytes',
    description:
      `The body is the file itself (at most ${ASSET_LIMIT_BYTES / 1024 / 1024} MiB), read before it is stored: ` +
      'a line that does not fit is a 400 naming it, and nothing is stored. The same bytes again answer 200 with ' +
      'the stored asset. A profile names the file by `sha256` (workload kind `dataset-asset` or `trace-asset`).',
  })
  @ApiConsumes(...ASSET_BODY_TYPES)
  @ApiBody({
    schema: { type: 'string', format: 'binary' },
    examples: {
      sharegpt: {
        summary: 'One ShareGPT conversation per line',
        value:
          '{"conversations":[{"from":"human","value":"How long should green tea steep?"},' +
          '{"from":"gpt","value":"Two to three minutes."},{"from":"human","value":"And stronger?"}]}\n',
      },
      trace: {
        summary: "A trace (?kind=trace) in teapot's own shape: ms from the first line, token lengths",
        value: EXAMPLE_TRACE,
      },
    },
  })
  @ApiCreatedResponse({ type: UploadedAssetDto, description: 'Stored now.' })
  @ApiOkResponse({ type: UploadedAssetDto, description: 'Already stored (same bytes): nothing changed.' })
  @ApiPayloadTooLargeResponse({ type: ErrorBody })
  @ApiUnsupportedMediaTypeResponse({ type: ErrorBody })
  async upload(
    @Query() query: UploadAssetQueryDto,
    @Headers('content-type') contentType: string | undefined,
    @Body() body: unknown,
    @Res({ passthrough: true }) response: Response,
  ): Promise<UploadedAssetDto> {
    const mediaType = (contentType ?? 'application/octet-stream').split(';')[0].trim().toLowerCase();
    const { asset, created } = await this.assets.upload(query, mediaType, body);
    response.status(created ? 201 : 200);
    return asset;
  }

  @Get(':sha256')
  @Access('read')
  @ApiNotFoundResponse({ type: ErrorBody })
  @ApiOkResponse({ type: AssetDto })
  get(@Param('sha256') sha256: string): Promise<AssetDto> {
    return this.assets.get(sha256);
  }
}
