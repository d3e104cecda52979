import { applyDecorators, type Type } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { Type as TransformType } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { TRACE_LIMITS, type Load, type ProfileWorkload, type Slo, type Workload } from '@teapot/measure';
import {
  DatasetAssetWorkloadDto,
  MultiTurnWorkloadDto,
  SharedPrefixWorkloadDto,
} from './session-workload.dto';
import { IsAbsentOr, isPlainObject } from '../../common/validators';
import { FINITE, LengthJitter, MAX_INPUT_TOKENS, MAX_OUTPUT_TOKENS } from './workload-bounds';

// Bounds one worker process can honour (the accuracy bench measures up to 1024 streams); beyond
// them a run would measure the client, not the server. Run more profiles or workers instead.
const MAX_CONCURRENCY = 1024;
const MAX_RATE_PER_S = 1000;

type SyntheticWorkload = Extract<Workload, { kind: 'synthetic' }>;
type DatasetWorkload = Extract<Workload, { kind: 'dataset' }>;
type ClosedLoad = Extract<Load, { kind: 'closed' }>;
type OpenLoad = Extract<Load, { kind: 'open' }>;

export const WORKLOAD_KINDS = [
  'synthetic',
  'dataset',
  'multi-turn',
  'shared-prefix',
  'dataset-asset',
  'trace-asset',
] as const;
export const LOAD_KINDS = ['closed', 'open'] as const;
export const ARRIVALS = ['poisson', 'gamma', 'constant'] as const;

/** One of `values`, documented from the same list it is checked against. */
function OneOf(values: readonly string[]): PropertyDecorator {
  return applyDecorators(ApiProperty({ enum: [...values] }), IsIn(values));
}

/** What an unknown `kind` is read as: only `kind` is checked, so the error names it. */
export class WorkloadKindDto {
  @OneOf(WORKLOAD_KINDS)
  kind!: ProfileWorkload['kind'];
}

export class SyntheticWorkloadDto implements SyntheticWorkload {
  @OneOf(['synthetic'])
  kind!: 'synthetic';

  @ApiProperty({
    minimum: 1,
    maximum: MAX_INPUT_TOKENS,
    example: 512,
    description: 'Target prompt length in tokens.',
  })
  @IsInt()
  @Min(1)
  @Max(MAX_INPUT_TOKENS)
  inputTokens!: number;

  @ApiProperty({ minimum: 1, maximum: MAX_OUTPUT_TOKENS, example: 256 })
  @IsInt()
  @Min(1)
  @Max(MAX_OUTPUT_TOKENS)
  outputTokens!: number;

  @LengthJitter()
  lengthJitter?: number;
}

export class DatasetPromptDto {
  @ApiProperty({ maxLength: 200_000 })
  @IsString()
  @Length(1, 200_000)
  prompt!: string;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_OUTPUT_TOKENS })
  @IsAbsentOr()
  @IsInt()
  @Min(1)
  @Max(MAX_OUTPUT_TOKENS)
  outputTokens?: number;
}

export class DatasetWorkloadDto implements DatasetWorkload {
  @OneOf(['dataset'])
  kind!: 'dataset';

  @ApiProperty({ type: [DatasetPromptDto], minItems: 1, maxItems: 10_000 })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(10_000)
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @TransformType(() => DatasetPromptDto)
  prompts!: DatasetPromptDto[];

  @ApiPropertyOptional({
    minimum: 1,
    maximum: MAX_OUTPUT_TOKENS,
    description: 'For prompts that do not set their own.',
  })
  @IsAbsentOr()
  @IsInt()
  @Min(1)
  @Max(MAX_OUTPUT_TOKENS)
  outputTokens?: number;
}

type TraceAssetWorkload = Extract<ProfileWorkload, { kind: 'trace-asset' }>;

export class TraceAssetWorkloadDto implements TraceAssetWorkload {
  @OneOf(['trace-asset'])
  kind!: 'trace-asset';

  @ApiProperty({
    pattern: '^[0-9a-f]{64}$',
    description:
      'SHA-256 of a trace uploaded with POST /assets?kind=trace: each line is sent at its timestamp (relative ' +
      'to the first line) with a prompt of its input length and max_tokens its output length. Needs an open ' +
      "load, whose ratePerS and arrival are not used (the trace's times are) and whose maxConcurrency applies. " +
      'A run ends with the last line unless requestCount or durationS cut it sooner.',
  })
  @Matches(/^[0-9a-f]{64}$/, { message: 'must be the lowercase hex SHA-256 of an uploaded trace' })
  sha256!: string;

  @ApiPropertyOptional({
    minimum: TRACE_LIMITS.minSpeed,
    maximum: TRACE_LIMITS.maxSpeed,
    example: 2,
    description: 'Replay speed, default 1: 2 sends the trace twice as fast (every gap halved).',
  })
  @IsAbsentOr()
  @IsNumber(FINITE)
  @Min(TRACE_LIMITS.minSpeed)
  @Max(TRACE_LIMITS.maxSpeed)
  speed?: number;
}

export class LoadKindDto {
  @OneOf(LOAD_KINDS)
  kind!: Load['kind'];
}

export class ClosedLoadDto implements ClosedLoad {
  @OneOf(['closed'])
  kind!: 'closed';

  @ApiProperty({ minimum: 1, maximum: MAX_CONCURRENCY, example: 8, description: 'Requests kept in flight.' })
  @IsInt()
  @Min(1)
  @Max(MAX_CONCURRENCY)
  concurrency!: number;
}

export class OpenLoadDto implements OpenLoad {
  @OneOf(['open'])
  kind!: 'open';

  @ApiProperty({ minimum: 0.001, maximum: MAX_RATE_PER_S, example: 4, description: 'Requests per second.' })
  @IsNumber(FINITE)
  @Min(0.001)
  @Max(MAX_RATE_PER_S)
  ratePerS!: number;

  @OneOf(ARRIVALS)
  arrival!: OpenLoad['arrival'];

  @ApiPropertyOptional({ minimum: 0.01, maximum: 100, description: 'Gamma shape; below 1 is burstier.' })
  @IsAbsentOr()
  @IsNumber(FINITE)
  @Min(0.01)
  @Max(100)
  burstiness?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_CONCURRENCY })
  @IsAbsentOr()
  @IsInt()
  @Min(1)
  @Max(MAX_CONCURRENCY)
  maxConcurrency?: number;

  @ApiPropertyOptional({
    example: true,
    description:
      'The measuring thread polls without sleeping until every arrival is sent: sends keep their schedule ' +
      'where waking a sleeping thread is slow (virtual machines: P99 send lateness 0.5-0.8 ms instead of ' +
      '1.2-1.8 ms in packages/measure), at the cost of one CPU core on the worker for the run.',
  })
  @IsAbsentOr()
  @IsBoolean()
  busyPoll?: boolean;
}

function SloMs(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ minimum: 0.001, maximum: 86_400_000 }),
    IsAbsentOr(),
    IsNumber(FINITE),
    Min(0.001),
    Max(86_400_000),
  );
}

/** Milliseconds; a request meets them all or it is not goodput. */
export class SloDto implements Slo {
  @SloMs() ttftMs?: number;
  @SloMs() tpotMs?: number;
  @SloMs() itlMs?: number;
  @SloMs() e2eMs?: number;
}

export const workloadSchema = {
  oneOf: [
    SyntheticWorkloadDto,
    DatasetWorkloadDto,
    MultiTurnWorkloadDto,
    SharedPrefixWorkloadDto,
    DatasetAssetWorkloadDto,
    TraceAssetWorkloadDto,
  ].map((dto) => ({ $ref: getSchemaPath(dto) })),
  discriminator: { propertyName: 'kind' },
};
export const loadSchema = {
  oneOf: [{ $ref: getSchemaPath(ClosedLoadDto) }, { $ref: getSchemaPath(OpenLoadDto) }],
  discriminator: { propertyName: 'kind' },
};

/**
 * A nested object whose class is chosen by its `kind`; an unknown kind reads as `base`, which
 * only checks `kind`. (class-transformer's own discriminator crashes on an array of nulls.)
 */
function DiscriminatedByKind(base: Type<unknown>, subTypes: Map<string, Type<unknown>>): PropertyDecorator {
  return applyDecorators(
    IsObject(),
    ValidateNested(),
    TransformType((options) => {
      const value: unknown = options?.object[options.property];
      return (isPlainObject(value) && typeof value.kind === 'string' && subTypes.get(value.kind)) || base;
    }),
  );
}

export const WorkloadObject = () =>
  DiscriminatedByKind(
    WorkloadKindDto,
    new Map<string, Type<unknown>>([
      ['synthetic', SyntheticWorkloadDto],
      ['dataset', DatasetWorkloadDto],
      ['multi-turn', MultiTurnWorkloadDto],
      ['shared-prefix', SharedPrefixWorkloadDto],
      ['dataset-asset', DatasetAssetWorkloadDto],
      ['trace-asset', TraceAssetWorkloadDto],
    ]),
  );

export const LoadObject = () =>
  DiscriminatedByKind(
    LoadKindDto,
    new Map<string, Type<unknown>>([
      ['closed', ClosedLoadDto],
      ['open', OpenLoadDto],
    ]),
  );
