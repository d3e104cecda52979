import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, ValidateIf } from 'class-validator';
import { DATASET_FORMATS, type DatasetFormat } from '@teapot/measure';
import { MAX_TOKENIZER_BYTES } from '@teapot/tokenizer';

/** Asset kinds an upload may be (the `AssetKind` enum). */
export const ASSET_KINDS = ['dataset', 'tokenizer'] as const;
export type AssetKindName = (typeof ASSET_KINDS)[number];

/**
 * Uploads are at most this large by kind (a 413 past it): a dataset is a sample of traffic, not a
 * corpus; a tokenizer.json may be as large as the path form accepts (Gemma 3's is 33 MB).
 */
export const ASSET_LIMIT_BYTES: Readonly<Record<AssetKindName, number>> = {
  dataset: 32 * 1024 * 1024,
  tokenizer: MAX_TOKENIZER_BYTES,
};

/** What the body parser reads at most; each kind's own limit is checked before (Content-Length) and after. */
export const MAX_ASSET_BYTES = Math.max(...Object.values(ASSET_LIMIT_BYTES));

/** The limit of an upload's `kind` query value (the largest when it names no kind: validation refuses it later). */
export function assetLimitOf(kind: unknown): number {
  return ASSET_KINDS.includes(kind as AssetKindName)
    ? ASSET_LIMIT_BYTES[kind as AssetKindName]
    : MAX_ASSET_BYTES;
}

/** How an asset's bytes may be sent: a JSON file is sent as octet-stream (JSON bodies are parsed). */
export const ASSET_BODY_TYPES = ['application/octet-stream', 'application/x-ndjson', 'application/jsonl'];

export class UploadAssetQueryDto {
  @ApiProperty({ enum: ASSET_KINDS, example: 'dataset' })
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
}
