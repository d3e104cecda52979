import { ApiExtraModels, ApiProperty, ApiPropertyOptional, OmitType, PartialType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsUUID,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { MAX_THRESHOLD } from '@teapot/analysis';
import type { SweepSpec } from '@teapot/contracts';
import { TRANSPORTS, type Load, type ProfileWorkload, type Slo, type Transport } from '@teapot/measure';
import { PageQueryDto } from '../../common/pagination';
import {
  IsAbsentOr,
  IsBoundedJsonObject,
  IsCronExpression,
  IsName,
  MIN_SCHEDULE_INTERVAL_S,
} from '../../common/validators';
import type { ProfileTokenizer } from '@teapot/measure';
import { TokenizerField, TokenizerProperty } from './tokenizer-field';
import {
  ClosedLoadDto,
  DatasetWorkloadDto,
  LoadObject,
  loadSchema,
  OpenLoadDto,
  SloDto,
  SyntheticWorkloadDto,
  TraceAssetWorkloadDto,
  WorkloadObject,
  workloadSchema,
} from './workload.dto';
import {
  CapacitySweepSpecDto,
  PointsSweepSpecDto,
  sweepSpecSchemaDoc,
  SweepSpecField,
} from './sweep-spec.dto';
import {
  DatasetAssetWorkloadDto,
  MultiTurnWorkloadDto,
  SharedPrefixWorkloadDto,
} from './session-workload.dto';

const INT32_MAX = 2 ** 31 - 1;
const DAY_S = 86_400;

@ApiExtraModels(
  SyntheticWorkloadDto,
  DatasetWorkloadDto,
  MultiTurnWorkloadDto,
  SharedPrefixWorkloadDto,
  DatasetAssetWorkloadDto,
  TraceAssetWorkloadDto,
  ClosedLoadDto,
  OpenLoadDto,
  PointsSweepSpecDto,
  CapacitySweepSpecDto,
)
export class CreateProfileDto {
  @ApiProperty({ example: 'chat-512-in-256-out-c8', maxLength: 200, description: 'Unique per endpoint.' })
  @IsName(200)
  name!: string;

  @ApiProperty({ format: 'uuid' })
  @IsUUID()
  endpointId!: string;

  @ApiProperty(workloadSchema)
  @WorkloadObject()
  workload!:
    | SyntheticWorkloadDto
    | DatasetWorkloadDto
    | MultiTurnWorkloadDto
    | SharedPrefixWorkloadDto
    | DatasetAssetWorkloadDto
    | TraceAssetWorkloadDto;

  @ApiProperty(loadSchema)
  @LoadObject()
  load!: ClosedLoadDto | OpenLoadDto;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    minimum: 1,
    maximum: 100_000,
    description: 'Measured requests per run (warm-up excluded). Set this, durationS, or both.',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100_000)
  requestCount?: number | null;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    minimum: 1,
    maximum: DAY_S,
    description: 'Stop issuing requests after this many seconds.',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(DAY_S)
  durationS?: number | null;

  @ApiPropertyOptional({ minimum: 0, maximum: 1000, default: 0 })
  @IsAbsentOr()
  @IsInt()
  @Min(0)
  @Max(1000)
  warmupRequests?: number;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    minimum: 0,
    maximum: INT32_MAX,
    description: 'Makes prompts, lengths and arrivals reproducible.',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(INT32_MAX)
  seed?: number | null;

  @ApiPropertyOptional({ minimum: 1000, maximum: 3_600_000, default: 120_000 })
  @IsAbsentOr()
  @IsInt()
  @Min(1000)
  @Max(3_600_000)
  timeoutMs?: number;

  @ApiPropertyOptional({ minimum: 100, maximum: 3_600_000, default: 30_000 })
  @IsAbsentOr()
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  stallTimeoutMs?: number;

  @ApiPropertyOptional({ default: true, description: 'Ask the server for exactly the output length.' })
  @IsAbsentOr()
  @IsBoolean()
  forceOutputLength?: boolean;

  @ApiPropertyOptional({
    enum: TRANSPORTS,
    default: 'http1',
    description:
      "How runs read the streams: `http1`, teapot's own HTTP/1.1 reader (timestamps each read first, least " +
      "CPU per chunk), or `undici`, undici's connection pool (for comparison, or an endpoint http1 cannot read). Stored on every run.",
  })
  @IsAbsentOr()
  @IsIn(TRANSPORTS)
  transport?: Transport;

  @TokenizerField()
  tokenizer?: ProfileTokenizer | null;

  @ApiPropertyOptional({ type: SloDto })
  @IsAbsentOr()
  @IsObject()
  @ValidateNested()
  @Type(() => SloDto)
  slo?: SloDto;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'number', minimum: 0, maximum: MAX_THRESHOLD },
    example: { 'itl.p99': 0.03, ttft: 0.1, error_rate: 0.005 },
    default: {},
    description:
      'The change that matters when runs of this profile are compared (POST /comparisons, deployment verification), ' +
      'by metric or metric.statistic (which wins): relative (0.03 = 3%), absolute for error_rate (0.005 = half a ' +
      "percentage point). A comparison request's own thresholds win; rows neither sets use 0.05 (error_rate 0.01).",
  })
  @IsAbsentOr()
  @IsBoundedJsonObject(1, 4_096)
  comparisonThresholds?: Record<string, number>;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: '0 */6 * * *',
    description: 'Cron schedule (UTC); or use scheduleIntervalS.',
  })
  @IsOptional()
  @IsCronExpression()
  scheduleCron?: string | null;

  @ApiPropertyOptional({
    type: Number,
    nullable: true,
    minimum: MIN_SCHEDULE_INTERVAL_S,
    maximum: 30 * DAY_S,
  })
  @IsOptional()
  @IsInt()
  @Min(MIN_SCHEDULE_INTERVAL_S)
  @Max(30 * DAY_S)
  scheduleIntervalS?: number | null;

  @ApiPropertyOptional({
    minimum: 0,
    maximum: DAY_S,
    default: 0,
    description: 'Random delay added to each slot.',
  })
  @IsAbsentOr()
  @IsInt()
  @Min(0)
  @Max(DAY_S)
  scheduleJitterS?: number;

  @SweepSpecField()
  sweep?: SweepSpec | null;

  @ApiPropertyOptional({ default: true, description: 'Scheduled runs happen only while enabled.' })
  @IsAbsentOr()
  @IsBoolean()
  enabled?: boolean;
}

/** The endpoint of a profile is fixed: runs of one profile compare one endpoint over time. */
export class UpdateProfileDto extends PartialType(OmitType(CreateProfileDto, ['endpointId'] as const), {
  skipNullProperties: false,
}) {}

export class ListProfilesQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  endpointId?: string;
}

export class ProfileDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ format: 'uuid' }) endpointId!: string;
  @ApiProperty(workloadSchema) workload!: ProfileWorkload;
  @ApiProperty(loadSchema) load!: Load;
  @ApiProperty({ type: Number, nullable: true }) requestCount!: number | null;
  @ApiProperty({ type: Number, nullable: true }) durationS!: number | null;
  @ApiProperty() warmupRequests!: number;
  @ApiProperty({ type: Number, nullable: true }) seed!: number | null;
  @ApiProperty() timeoutMs!: number;
  @ApiProperty() stallTimeoutMs!: number;
  @ApiProperty() forceOutputLength!: boolean;
  @ApiProperty({ enum: TRANSPORTS }) transport!: Transport;
  @TokenizerProperty() tokenizer!: ProfileTokenizer | null;
  @ApiProperty({ type: SloDto }) slo!: Slo;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'number' },
    example: { 'itl.p99': 0.03 },
    description: 'Thresholds comparisons of its runs use where the request sets none.',
  })
  comparisonThresholds!: Record<string, number>;
  @ApiProperty({ type: String, nullable: true }) scheduleCron!: string | null;
  @ApiProperty({ type: Number, nullable: true }) scheduleIntervalS!: number | null;
  @ApiProperty() scheduleJitterS!: number;
  @ApiProperty({
    ...sweepSpecSchemaDoc,
    nullable: true,
    description:
      'The sweep each slot measures, as stored (defaults filled, a preset expanded); null: one load.',
  })
  sweep!: SweepSpec | null;
  @ApiProperty() enabled!: boolean;
  @ApiProperty() createdAt!: Date;
  @ApiProperty() updatedAt!: Date;
}
