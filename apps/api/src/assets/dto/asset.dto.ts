import { ApiProperty } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { DATASET_FORMATS, type DatasetFormat } from '@teapot/measure';

/** Asset kinds an upload may be (the `AssetKind` enum). */
export const ASSET_KINDS = ['dataset'] as const;

/** Uploads are at most this large (a 413 past it): a dataset is a sample of traffic, not a corpus. */
export const ASSET_LIMIT_BYTES = 32 * 1024 * 1024;

/** How an asset's bytes may be sent: a JSON array file is sent as octet-stream (JSON bodies are parsed). */
export const ASSET_BODY_TYPES = ['application/octet-stream', 'application/x-ndjson', 'application/jsonl'];

export class UploadAssetQueryDto {
  @ApiProperty({ enum: ASSET_KINDS, example: 'dataset' })
  @IsIn(ASSET_KINDS)
  kind!: (typeof ASSET_KINDS)[number];

  @ApiProperty({
    enum: DATASET_FORMATS,
    example: 'sharegpt',
    description:
      'sharegpt: objects with `conversations` of `from`/`value`; openai: objects with `messages` of `role`/`content`. ' +
      'JSON lines, or one JSON array. The file is read before it is stored: a line that does not fit is a 400 naming it.',
  })
  @IsIn(DATASET_FORMATS)
  format!: DatasetFormat;
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
  @ApiProperty({ example: 32, description: 'Conversations in the dataset, every turn kept.' })
  conversations!: number;

  @ApiProperty({ example: 80 })
  turns!: number;
}
