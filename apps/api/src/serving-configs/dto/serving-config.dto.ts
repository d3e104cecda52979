import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsBoolean,
  IsInt,
  IsNumber,
  IsOptional,
  IsPositive,
  IsString,
  Length,
  Max,
  Min,
} from 'class-validator';
import { IsAbsentOr, IsBoundedJsonObject } from '../../common/validators';

const EXTRA_MAX_DEPTH = 8;
const EXTRA_MAX_BYTES = 16 * 1024;
/** Far above any GPU's hourly price: a larger figure is a typo (cents, or a per-node price times 1000). */
export const MAX_USD_PER_GPU_HOUR = 1000;

function Text(maxLength: number, example?: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type: String, nullable: true, maxLength, example }),
    IsOptional(),
    IsString(),
    Length(1, maxLength),
  );
}

function Count(max: number, example?: number): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type: Number, nullable: true, minimum: 1, maximum: max, example }),
    IsOptional(),
    IsInt(),
    Min(1),
    Max(max),
  );
}

function Flag(): PropertyDecorator {
  return applyDecorators(ApiPropertyOptional({ type: Boolean, nullable: true }), IsOptional(), IsBoolean());
}

/** What serves an endpoint. Every field is optional: record what you know; null means unknown. */
export class CreateServingConfigDto {
  @Text(100, 'vllm') engine?: string | null;
  @Text(100, '0.10.1') engineVersion?: string | null;
  @Text(100, 'H100-SXM') gpuModel?: string | null;
  @Count(4096, 1) gpuCount?: number | null;
  @Text(50, 'fp8') weightQuant?: string | null;
  @Text(50, 'fp8') activationQuant?: string | null;
  @Text(50, 'fp8') kvCacheQuant?: string | null;
  @Count(1024, 1) tensorParallel?: number | null;
  @Count(1024, 1) pipelineParallel?: number | null;
  @Count(100_000_000, 8192) maxBatchTokens?: number | null;
  @Count(1_000_000, 256) maxNumSeqs?: number | null;
  @Text(100, 'eagle') specDecodeMethod?: string | null;
  @Text(200) specDraftModel?: string | null;
  @Count(64) specNumTokens?: number | null;
  @Flag() chunkedPrefill?: boolean | null;
  @Flag() prefixCaching?: boolean | null;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: `Any other serving settings (at most ${EXTRA_MAX_DEPTH} levels, ${EXTRA_MAX_BYTES} bytes).`,
    example: { gpuMemoryUtilization: 0.9 },
  })
  @IsAbsentOr()
  @IsBoundedJsonObject(EXTRA_MAX_DEPTH, EXTRA_MAX_BYTES)
  extra?: Record<string, unknown>;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    exclusiveMinimum: true,
    minimum: 0,
    maximum: MAX_USD_PER_GPU_HOUR,
    example: 2.49,
    description:
      'What one GPU of this configuration costs per hour, in US dollars: sweeps report cost per million output ' +
      'tokens from it (GPUs: gpuCount, else tensorParallel x pipelineParallel). null or absent: no price, so no cost.',
  })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @IsPositive()
  @Max(MAX_USD_PER_GPU_HOUR)
  usdPerGpuHour?: number | null;

  @Text(2000, 'moved to FP8 weights') note?: string | null;
}

export class ServingConfigDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) endpointId!: string;
  @ApiProperty({ description: '1 for the first configuration of an endpoint, then 2, 3, ...' })
  version!: number;
  @ApiProperty({ type: String, nullable: true }) engine!: string | null;
  @ApiProperty({ type: String, nullable: true }) engineVersion!: string | null;
  @ApiProperty({ type: String, nullable: true }) gpuModel!: string | null;
  @ApiProperty({ type: Number, nullable: true }) gpuCount!: number | null;
  @ApiProperty({ type: String, nullable: true }) weightQuant!: string | null;
  @ApiProperty({ type: String, nullable: true }) activationQuant!: string | null;
  @ApiProperty({ type: String, nullable: true }) kvCacheQuant!: string | null;
  @ApiProperty({ type: Number, nullable: true }) tensorParallel!: number | null;
  @ApiProperty({ type: Number, nullable: true }) pipelineParallel!: number | null;
  @ApiProperty({ type: Number, nullable: true }) maxBatchTokens!: number | null;
  @ApiProperty({ type: Number, nullable: true }) maxNumSeqs!: number | null;
  @ApiProperty({ type: String, nullable: true }) specDecodeMethod!: string | null;
  @ApiProperty({ type: String, nullable: true }) specDraftModel!: string | null;
  @ApiProperty({ type: Number, nullable: true }) specNumTokens!: number | null;
  @ApiProperty({ type: Boolean, nullable: true }) chunkedPrefill!: boolean | null;
  @ApiProperty({ type: Boolean, nullable: true }) prefixCaching!: boolean | null;
  @ApiProperty({ type: 'object', additionalProperties: true }) extra!: unknown;
  @ApiProperty({ type: String, nullable: true }) note!: string | null;
  @ApiProperty({ type: Number, nullable: true, description: 'US dollars per GPU-hour; null: no price set.' })
  usdPerGpuHour!: number | null;
  @ApiProperty() createdAt!: Date;
}

export class ServingConfigListDto {
  @ApiProperty({ type: [ServingConfigDto], description: 'Newest version first.' })
  items!: ServingConfigDto[];
}
