import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  MAX_COMPARISON_ITERATIONS,
  MAX_SIDE_RUN_IDS,
  RESAMPLE_CHOICES,
  RUN_TRIGGERS,
  SERVING_CONFIG_FIELD_NAMES,
  type ResampleChoice,
  type RunTriggerName,
} from '@teapot/analysis';
import { METRIC_NAMES, STATISTICS } from '@teapot/contracts';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsObject,
  IsOptional,
  IsUUID,
  ValidateNested,
} from 'class-validator';
import { IsBoundedJsonObject, IsTimestamp, IsWholeNumber } from '../../common/validators';

const MAX_IDS = 20;

export class ComparisonSideDto {
  @ApiPropertyOptional({
    type: [String],
    format: 'uuid',
    maxItems: MAX_SIDE_RUN_IDS,
    description: 'These runs (no window needed), e.g. the runs after a deployment.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_SIDE_RUN_IDS)
  @IsUUID('all', { each: true })
  runIds?: string[];

  @ApiPropertyOptional({
    example: '2026-11-24T00:00:00Z',
    description: 'Runs started at or after (ISO 8601); required unless runIds name the runs.',
  })
  @IsOptional()
  @IsTimestamp()
  from?: string;

  @ApiPropertyOptional({ example: '2026-12-01T00:00:00Z', description: 'Runs started before (default now).' })
  @IsOptional()
  @IsTimestamp()
  to?: string;

  @ApiPropertyOptional({ type: [String], format: 'uuid', maxItems: MAX_IDS })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_IDS)
  @IsUUID('all', { each: true })
  endpointIds?: string[];

  @ApiPropertyOptional({ type: [String], format: 'uuid', maxItems: MAX_IDS })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_IDS)
  @IsUUID('all', { each: true })
  profileIds?: string[];

  @ApiPropertyOptional({ enum: RUN_TRIGGERS, isArray: true })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(RUN_TRIGGERS.length)
  @IsIn(RUN_TRIGGERS, { each: true })
  triggers?: RunTriggerName[];

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'array', items: {} },
    example: { weightQuant: ['fp8'], gpuModel: ['H100 SXM'] },
    description: `Any of these values per serving-configuration field (${SERVING_CONFIG_FIELD_NAMES.join(', ')}); null matches an unset field.`,
  })
  @IsOptional()
  @IsBoundedJsonObject(2, 8_192)
  config?: Record<string, Array<string | number | boolean | null>>;

  @ApiPropertyOptional({ default: false, description: 'Keep runs whose client was saturated.' })
  @IsOptional()
  @IsBoolean()
  includeSaturated?: boolean;
}

export class CreateComparisonDto {
  @ApiProperty({
    type: ComparisonSideDto,
    example: { from: '2026-11-24T00:00:00Z', config: { weightQuant: ['fp16'] } },
  })
  @IsObject()
  @ValidateNested()
  @Type(() => ComparisonSideDto)
  baseline!: ComparisonSideDto;

  @ApiProperty({
    type: ComparisonSideDto,
    example: { from: '2026-11-24T00:00:00Z', config: { weightQuant: ['fp8'] } },
  })
  @IsObject()
  @ValidateNested()
  @Type(() => ComparisonSideDto)
  candidate!: ComparisonSideDto;

  @ApiPropertyOptional({
    enum: METRIC_NAMES,
    isArray: true,
    example: ['itl', 'tpot', 'ttft', 'output_tokens_per_s'],
    description: 'Default: itl, tpot, ttft, e2e, output_tokens_per_s, requests_per_s, error_rate.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(METRIC_NAMES.length)
  @IsIn(METRIC_NAMES, { each: true })
  metrics?: string[];

  @ApiPropertyOptional({
    enum: STATISTICS,
    isArray: true,
    example: ['p50', 'p99'],
    description: 'Of the latency metrics (default p50, p90, p99); a rate is always its pooled mean.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(STATISTICS.length)
  @IsIn(STATISTICS, { each: true })
  statistics?: string[];

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'number' },
    example: { itl: 0.05, 'itl.p99': 0.1, error_rate: 0.01 },
    description:
      "The change that matters per metric or metric.statistic: relative (0.05 = 5%), absolute for error_rate. A row without one here takes its profile's comparisonThresholds, else 0.05 (error_rate 0.01).",
  })
  @IsOptional()
  @IsBoundedJsonObject(1, 4_096)
  thresholds?: Record<string, number>;

  @ApiPropertyOptional({
    enum: RESAMPLE_CHOICES,
    default: 'auto',
    description:
      'What the bootstrap redraws: auto (runs when both sides have >= 10 runs, else requests), runs, requests.',
  })
  @IsOptional()
  @IsIn(RESAMPLE_CHOICES)
  resample?: ResampleChoice;

  @ApiPropertyOptional({ minimum: 100, maximum: MAX_COMPARISON_ITERATIONS, default: 2000 })
  @IsOptional()
  @IsWholeNumber(100, MAX_COMPARISON_ITERATIONS)
  iterations?: number;

  @ApiPropertyOptional({
    minimum: 0,
    maximum: 2 ** 31 - 1,
    default: 1,
    description: 'Same seed, same intervals.',
  })
  @IsOptional()
  @IsWholeNumber(0, 2 ** 31 - 1)
  seed?: number;
}
