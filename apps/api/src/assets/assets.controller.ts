import { Body, Get, Headers, Param, Post, Query, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiConflictResponse,
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

const mib = (bytes: number) => bytes / 1024 / 1024;

@ResourceController('assets', 'assets')
export class AssetsController {
  constructor(private readonly assets: AssetsService) {}

  @Post()
  @Access('write')
  @ApiOperation({
    summary: "Upload a dataset or a model's tokenizer.json, stored once by the SHA-256 of its bytes",
    description:
      'The body is the file itself, read before it is stored: a dataset (`kind=dataset`, at most ' +
      `${mib(ASSET_LIMIT_BYTES.dataset)} MiB) must parse in its \`format\`; a tokenizer (\`kind=tokenizer\`, a Hugging ` +
      `Face tokenizer.json sent as application/octet-stream, at most ${mib(ASSET_LIMIT_BYTES.tokenizer)} MiB) must load ` +
      'and give prompt words, as every run will load it. The same bytes again answer 200 with the stored asset. ' +
      `A trace (\`kind=trace\`, JSON lines or a CSV with a header row, of timestamps and lengths, at most ${mib(ASSET_LIMIT_BYTES.trace)} MiB) must ` +
      'read line by line; a line that does not fit is a 400 naming it, and nothing is stored. ' +
      'A profile names a dataset by `sha256` (workload kind `dataset-asset`), a trace likewise (`trace-asset`) ' +
      'and a tokenizer as `tokenizer: {"sha256": ...}`.',
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
      tokenizer: {
        summary:
          'The shape of a tokenizer.json (kind=tokenizer; real ones are 2-33 MB: this one is refused, prompts need 16 one-token words)',
        value:
          '{"version":"1.0","added_tokens":[],"normalizer":null,"pre_tokenizer":{"type":"ByteLevel",' +
          '"add_prefix_space":false,"trim_offsets":true,"use_regex":true},"post_processor":null,' +
          '"decoder":{"type":"ByteLevel"},' +
          '"model":{"type":"BPE","vocab":{"t":0,"e":1,"a":2,"Ġ":3,"Ġt":4,"ea":5,"Ġtea":6},"merges":["Ġ t","e a","Ġt ea"]}}',
      },
      trace: {
        summary: "A trace (?kind=trace) in teapot's own shape: ms from the first line, token lengths",
        value: EXAMPLE_TRACE,
      },
    },
  })
  @ApiCreatedResponse({ type: UploadedAssetDto, description: 'Stored now.' })
  @ApiOkResponse({ type: UploadedAssetDto, description: 'Already stored (same bytes): nothing changed.' })
  @ApiConflictResponse({
    type: ErrorBody,
    description: 'The same bytes are stored as another kind: an asset has one kind.',
  })
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
