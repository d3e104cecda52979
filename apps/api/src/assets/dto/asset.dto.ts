import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, ValidateIf } from 'class-validator';
import {
  DATASET_FORMATS,
  TRACE_FORMATS,
  TRACE_LIMITS,
  type DatasetFormat,
  type TraceFormat,
} from '@teapot/measure';
import { MAX_TOKENIZER_BYTES } from '@teapot/tokenizer';

/** Asset kinds an upload may be (the `AssetKind` enum). */
export const ASSET_KINDS = ['dataset', 'tokenizer', 'trace'] as const;
export type AssetKindName = (typeof ASSET_KINDS)[number];

/**
 * Uploads are at most this large by kind (a 413 past it): a dataset is a sample of traffic, not a
 * corpus; a tokenizer.json may be as large as the path form accepts (Gemma 3's is 33 MB); a trace
 * as large as its reader reads.
 */
export const ASSET_LIMIT_BYTES: Readonly<Record<AssetKindName, number>> = {
  dataset: 32 * 1024 * 1024,
  tokenizer: MAX_TOKENIZER_BYTES,
  trace: TRACE_LIMITS.bytes,
};

/** The trace the OpenAPI document shows for POST /assets?kind=trace; the trace-asset profile example names its hash. */
export const EXAMPLE_TRACE =
  '{"timestamp_ms":0,"input_tokens":812,"output_tokens":96}\n' +
  '{"timestamp_ms":140.5,"input_tokens":2048,"output_tokens":32}\n' +
  '{"timestamp_ms":141,"input_tokens":77,"output_tokens":410}\n';

/** What the body parser reads at most; each kind's own limit is checked before (Content-Length) and after. */
export const MAX_ASSET_BYTES = Math.max(...Object.values(ASSET_LIMIT_BYTES));

/** The limit of an upload's `kind` query value (the largest when it names no kind: validation refuses it later). */
export function assetLimitOf(kind: unknown): number {
  return ASSET_KINDS.includes(kind as AssetKindName)
    ? ASSET_LIMIT_BYTES[kind as AssetKindName]
    : MAX_ASSET_BYTES;
}

/** How an asset's bytes may be sent: a JSON file is sent as octet-stream (JSON bodies are parsed). */
export const ASSET_BODY_TYPES = [
  'application/octet-stream',
  'application/x-ndjson',
  'application/jsonl',
  'text/csv',
];

export class UploadAssetQueryDto {
  @ApiProperty({
    enum: ASSET_KINDS,
    example: 'dataset',
    description:
      'dataset: conversations (needs `format`). tokenizer: a tokenizer.json. trace: JSON lines (or CSV with a header row) of a timestamp and ' +
      'input/output lengths, in teapot\'s shape {"timestamp_ms","input_tokens","output_tokens"} or Mooncake\'s, ' +
      "BurstGPT's or Azure's (the format is read from the first line; see the `trace-asset` workload).",
  })
  @IsIn(ASSET_KINDS)
  kind!: AssetKindName;

  @ApiPropertyOptional({
    enum: DATASET_FORMATS,
    example: 'sharegpt',
    description:
      'Datasets only (required there): sharegpt, objects with `conversations` of `from`/`value`; openai, objects with ' +
      '`messages` of `role`/`content`. JSON lines, or one JSON array. The file is read before it is stored: a line ' +
      'that does not fit is a 400 naming it.',
  })
  @ValidateIf((query: UploadAssetQueryDto) => query.kind === 'dataset' || query.format !== undefined)
  @IsIn(DATASET_FORMATS)
  format?: DatasetFormat;
}

export class AssetDto {
  @ApiProperty({ example: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' })
  sha256!: string;

  @ApiProperty({ enum: ASSET_KINDS })
  kind!: string;

  @ApiProperty({ example: 'application/x-ndjson' })
  mediaType!: string;

  @ApiProperty({ example: 17237 })
  sizeBytes!: number;

  @ApiProperty()
  createdAt!: Date;
}

export class UploadedAssetDto extends AssetDto {
  @ApiPropertyOptional({ example: 32, description: 'Datasets: conversations, every turn kept.' })
  conversations?: number;

  @ApiPropertyOptional({ example: 80, description: 'Datasets: turns of all conversations.' })
  turns?: number;

  @ApiPropertyOptional({ example: 128256, description: 'Tokenizers: tokens in the vocabulary.' })
  vocabularySize?: number;

  @ApiPropertyOptional({ enum: TRACE_FORMATS, description: 'Traces: the shape read from the first line.' })
  traceFormat?: TraceFormat;

  @ApiPropertyOptional({ example: 23608, description: 'Traces: requests (lines).' })
  lines?: number;

  @ApiPropertyOptional({ example: 3600, description: 'Traces: seconds from the first request to the last.' })
  spanS?: number;
}
