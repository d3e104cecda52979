import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  RUN_TRIGGERS,
  SERVING_CONFIG_FIELD_NAMES,
  TREND_BUCKETS,
  TREND_GROUP_FIELDS,
  type RunTriggerName,
  type TrendBucket,
  type TrendGroupField,
} from '@teapot/analysis';
import {
  DEPLOYMENT_VERDICTS,
  SERIES_METRIC_NAMES,
  STATISTICS,
  type MetricName,
  type Statistic,
  type SweepMetricName,
} from '@teapot/contracts';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { IsTimestamp } from '../../common/validators';
import { QueryArray, QueryBoolean, QueryUuids } from '../../common/query';

const MAX_ENDPOINTS = 20;
const TREND_METRICS = SERIES_METRIC_NAMES;
const MAX_VALUES = 20;

export class TrendQueryDto {
  @ApiProperty({
    enum: TREND_METRICS,
    example: 'itl',
    description:
      'A run metric of the catalogue, or a sweep metric: `capacity` (capacity at SLO) or `cost_per_mtok` ' +
      '(USD per million output tokens at capacity), one sample per finished capacity search.',
  })
  @IsIn(TREND_METRICS)
  metric!: MetricName | SweepMetricName;

  @ApiProperty({
    enum: STATISTICS,
    example: 'p99',
    description:
      'A statistic the metric offers; rates offer only `mean` (pooled); sweep metrics `p50` and `mean` over sweeps.',
  })
  @IsIn(STATISTICS)
  statistic!: Statistic;

  @ApiProperty({
    enum: TREND_BUCKETS,
    example: 'day',
    description: 'UTC hours, days, weeks (from Monday), or runs.',
  })
  @IsIn(TREND_BUCKETS)
  bucket!: TrendBucket;

  @ApiProperty({
    format: 'date-time',
    example: '2026-09-01T00:00:00Z',
    description: 'Runs started at or after (ISO 8601). Required.',
  })
  @IsTimestamp()
  from!: string;

  @ApiPropertyOptional({
    format: 'date-time',
    example: '2026-12-01T00:00:00Z',
    description: 'Runs started before (default: now).',
  })
  @IsOptional()
  @IsTimestamp()
  to?: string;

  @QueryUuids(MAX_ENDPOINTS, 'Any of these endpoints (repeatable).')
  endpointId?: string[];

  @QueryUuids(MAX_ENDPOINTS, 'Any of these profiles (repeatable).')
  profileId?: string[];

  @ApiPropertyOptional({ enum: RUN_TRIGGERS, isArray: true, description: 'Any of these triggers.' })
  @QueryArray(RUN_TRIGGERS.length)
  @IsIn(RUN_TRIGGERS, { each: true })
  trigger?: RunTriggerName[];

  @ApiPropertyOptional({
    enum: TREND_GROUP_FIELDS,
    isArray: true,
    example: ['endpoint', 'weightQuant'],
    description: 'One series per distinct combination (default: endpoint).',
  })
  @QueryArray(TREND_GROUP_FIELDS.length)
  @IsIn(TREND_GROUP_FIELDS, { each: true })
  groupBy?: TrendGroupField[];

  @ApiPropertyOptional({
    description: 'Include runs whose client was saturated (default false; they are counted).',
  })
  @QueryBoolean()
  includeSaturated?: boolean;
}

// Each serving-configuration field is a repeatable filter of its own, e.g. ?weightQuant=fp8&gpuCount=2.
for (const field of SERVING_CONFIG_FIELD_NAMES) {
  const target = TrendQueryDto.prototype;
  ApiPropertyOptional({
    type: [String],
    description: `Runs whose serving configuration has any of these ${field} values ("null" for unset).`,
  })(target, field);
  QueryArray(MAX_VALUES)(target, field);
  IsString({ each: true })(target, field);
  MaxLength(200, { each: true })(target, field);
}

class ConfigVersionDto {
  @ApiProperty({ format: 'uuid' }) endpointId!: string;
  @ApiProperty({ type: Number, nullable: true }) version!: number | null;
}

class TrendPointDto {
  @ApiProperty({ example: '2026-11-30T00:00:00.000Z', description: 'Bucket start, or the run start.' })
  start!: Date;
  @ApiProperty({
    type: Number,
    nullable: true,
    example: 12.4,
    description: 'Null when the bucket holds no sample.',
  })
  value!: number | null;
  @ApiProperty({ example: 24 }) runs!: number;
  @ApiProperty({ example: 4800, description: 'Finished measured requests.' }) requests!: number;
  @ApiProperty({ example: 1228800, description: 'Output tokens of successful requests.' }) tokens!: number;
  @ApiProperty({ example: 1224000, description: 'Samples the value is over: tokens, requests or runs.' })
  samples!: number;
  @ApiProperty({ type: [ConfigVersionDto] }) configVersions!: ConfigVersionDto[];
  @ApiPropertyOptional({ format: 'uuid', description: 'bucket=run: the run.' }) runId?: string;
  @ApiPropertyOptional({ format: 'uuid', description: 'Sweep metrics, bucket=run: the sweep.' })
  sweepId?: string;
  @ApiPropertyOptional({
    example: 0,
    description: "Sweep metrics: the bucket's sweeps whose SLO failed even at the lowest load (no value).",
  })
  belowLowest?: number;
}

class TrendReadDto {
  @ApiProperty({ example: 90, description: 'Rows of hourly or daily rollups read.' }) rollupRows!: number;
  @ApiProperty({
    example: 0,
    description: 'Runs read one by one (bucket=run, run filters, partial hours at the ends of the range).',
  })
  runs!: number;
}

class TrendSeriesDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: { endpoint: '5f0c6a6e-8f57-4cf7-a2a4-1b9f6f4f1f3e', weightQuant: 'fp8' },
  })
  key!: Record<string, unknown>;
  @ApiProperty({ type: [TrendPointDto] }) points!: TrendPointDto[];
}

class TrendDeploymentDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) endpointId!: string;
  @ApiProperty({ example: '2026-11-30T14:05:00.000Z' }) effectiveAt!: Date;
  @ApiProperty({ example: 'moved to FP16 weights' }) label!: string;
  @ApiProperty({ type: String, nullable: true, example: 'vllm-0.10.1-fp16' }) version!: string | null;
  @ApiProperty({ enum: [...DEPLOYMENT_VERDICTS, 'pending'], example: 'regressed' }) verdict!: string;
  @ApiProperty({
    type: [Number],
    example: [0],
    description: "Indexes into `series` of the series whose runs measured the deployment's endpoint.",
  })
  series!: number[];
}

export class TrendDto {
  @ApiProperty({ enum: TREND_METRICS, example: 'itl' }) metric!: string;
  @ApiProperty({ enum: STATISTICS, example: 'p99' }) statistic!: string;
  @ApiProperty({ example: 'ms' }) unit!: string;
  @ApiProperty({ enum: ['token', 'request', 'run', 'sweep'], example: 'token' }) weighting!: string;
  @ApiProperty({ enum: TREND_BUCKETS, example: 'day' }) bucket!: string;
  @ApiProperty() from!: Date;
  @ApiProperty() to!: Date;
  @ApiProperty({ type: [String], example: ['endpoint'] }) groupBy!: string[];
  @ApiProperty({ type: [TrendSeriesDto] }) series!: TrendSeriesDto[];
  @ApiProperty({ example: 0, description: 'Client-saturated runs in the selection that were left out.' })
  excludedSaturatedRuns!: number;
  @ApiProperty({ type: TrendReadDto, description: 'What the answer read, for its cost.' })
  read!: TrendReadDto;
  @ApiProperty({
    type: [TrendDeploymentDto],
    description:
      'Deployments that took effect within [from, to) on the endpoints of the series, oldest first (at most 1,000, the latest kept).',
  })
  deployments!: TrendDeploymentDto[];
  @ApiPropertyOptional({
    example: 'no measured run matches the selection',
    description: 'Why there are no series.',
  })
  reason?: string;
}
