import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  COMPARISON_LIMITS,
  RESAMPLE_CHOICES,
  RUN_TRIGGERS,
  SERVING_CONFIG_FIELD_NAMES,
  type ResampleChoice,
  type RunTriggerName,
} from '@teapot/analysis';
import { JUDGED_METRIC_NAMES, STATISTICS } from '@teapot/contracts';
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

/** Runs, endpoints or profiles named by id: absent, or 1 to `maxItems` UUIDs. */
export function SomeIds(maxItems: number, description?: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      type: [String],
      format: 'uuid',
      maxItems,
      ...(description ? { description } : {}),
    }),
    IsOptional(),
    IsArray(),
    ArrayMinSize(1),
    ArrayMaxSize(maxItems),
    IsUUID('all', { each: true }),
  );
}

/** Absent (the default choice), or some of `values`: never empty, never longer than `values`. */
export function SomeOf(
  values: readonly string[],
  docs: { example: string[]; description: string },
): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ enum: values, isArray: true, ...docs }),
    IsOptional(),
    IsArray(),
    ArrayMinSize(1),
    ArrayMaxSize(values.length),
    IsIn(values, { each: true }),
  );
}

export class ComparisonSideDto {
  @SomeIds(COMPARISON_LIMITS.runIds, 'These runs (no window needed), e.g. the runs after a deployment.')
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

  @SomeIds(COMPARISON_LIMITS.endpointIds)
  endpointIds?: string[];

  @SomeIds(COMPARISON_LIMITS.profileIds)
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

/** One side of a comparison (of runs, or of sweeps), validated as a nested object. */
function Side<T extends object>(type: new () => T, example: object): PropertyDecorator {
  return applyDecorators(
    ApiProperty({ type, example }),
    IsObject(),
    ValidateNested(),
    Type(() => type),
  );
}

/** A baseline and a candidate side of `type`: what every comparison body starts with. */
export function ComparisonSides<T extends object>(type: new () => T) {
  class Sides {
    @Side(type, { from: '2026-11-24T00:00:00Z', config: { weightQuant: ['fp16'] } })
    baseline!: T;

    @Side(type, { from: '2026-11-24T00:00:00Z', config: { weightQuant: ['fp8'] } })
    candidate!: T;
  }
  return Sides;
}

export class CreateComparisonDto extends ComparisonSides(ComparisonSideDto) {
  @SomeOf(JUDGED_METRIC_NAMES, {
    example: ['itl', 'tpot', 'ttft', 'output_tokens_per_s'],
    description: 'Default: itl, tpot, ttft, e2e, output_tokens_per_s, requests_per_s, error_rate.',
  })
  metrics?: string[];

  @SomeOf(STATISTICS, {
    example: ['p50', 'p99'],
    description: 'Of the latency metrics (default p50, p90, p99); a rate is always its pooled mean.',
  })
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

  @ApiPropertyOptional({
    minimum: COMPARISON_LIMITS.iterations.min,
    maximum: COMPARISON_LIMITS.iterations.max,
    default: 2000,
  })
  @IsOptional()
  @IsWholeNumber(COMPARISON_LIMITS.iterations.min, COMPARISON_LIMITS.iterations.max)
  iterations?: number;

  @ApiPropertyOptional({
    minimum: COMPARISON_LIMITS.seed.min,
    maximum: COMPARISON_LIMITS.seed.max,
    default: 1,
    description: 'Same seed, same intervals.',
  })
  @IsOptional()
  @IsWholeNumber(COMPARISON_LIMITS.seed.min, COMPARISON_LIMITS.seed.max)
  seed?: number;
}
