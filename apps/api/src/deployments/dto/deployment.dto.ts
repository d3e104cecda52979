import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Matches,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import {
  DEFAULT_INCLUDE_SATURATED,
  DEPLOYMENT_SETTINGS,
  DEPLOYMENT_VERDICTS,
  RUN_STATUSES,
  SWEEP_STATUSES,
  type DeploymentVerdictName,
  type DeploymentVerification,
  type RunStatusName,
  type SweepStatusName,
} from '@teapot/contracts';
import { PageQueryDto } from '../../common/pagination';
import { QueryArray } from '../../common/query';
import { IsAbsentOr, IsTimestamp } from '../../common/validators';
import { ServingConfigObject } from '../../serving-configs/dto/serving-config-object';
import { CreateServingConfigDto, ServingConfigDto } from '../../serving-configs/dto/serving-config.dto';

const NO_CONTROL_CHARACTERS = /^[^\p{C}]+$/u;
const MAX_PROFILES = 50;
const S = DEPLOYMENT_SETTINGS;

/** A bounded setting (its bounds and default from DEPLOYMENT_SETTINGS), absent for the default. */
function Setting(
  bound: { min: number; max: number; default: number },
  description: string,
  kind: 'integer' | 'number' = 'integer',
): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ minimum: bound.min, maximum: bound.max, default: bound.default, description }),
    IsAbsentOr(),
    kind === 'integer' ? IsInt() : IsNumber({ allowNaN: false, allowInfinity: false }),
    Min(bound.min),
    Max(bound.max),
  );
}

/** How the deployment is verified; every field has a default. */
export class DeploymentSettingsDto {
  @Setting(S.runsPerProfile, 'Post-deployment runs of each profile (capacity searches of a sweep profile).')
  runsPerProfile?: number;

  @ApiPropertyOptional({
    type: [String],
    format: 'uuid',
    maxItems: MAX_PROFILES,
    description: 'Profiles to run and compare (default: every enabled profile of the endpoint).',
  })
  @IsAbsentOr()
  @IsArray()
  @ArrayMaxSize(MAX_PROFILES)
  @ArrayUnique()
  @IsUUID('all', { each: true })
  profileIds?: string[];

  @Setting(
    S.firstRunDelayS,
    'Seconds between the deployment taking effect and its first run (caches warm up).',
  )
  firstRunDelayS?: number;

  @Setting(
    S.baselineRuns,
    'K: the baseline is the last K successful runs of the same profile before effectiveAt.',
  )
  baselineRuns?: number;

  @Setting(S.threshold, 'The relative change of a metric that matters (0.1 = 10%).', 'number')
  threshold?: number;

  @ApiPropertyOptional({
    default: DEFAULT_INCLUDE_SATURATED,
    description:
      'Count client-saturated runs on both sides (a measuring machine known to be shared); by default they are left out, since such a run may have measured the client rather than the endpoint.',
  })
  @IsAbsentOr()
  @IsBoolean()
  includeSaturated?: boolean;
}

export class CreateDeploymentDto {
  @ApiProperty({ format: 'uuid' })
  @IsUUID()
  endpointId!: string;

  @ApiProperty({ example: 'moved to FP16 weights', maxLength: 200 })
  @IsString()
  @Length(1, 200)
  @Matches(NO_CONTROL_CHARACTERS, { message: 'label must not contain control characters' })
  label!: string;

  @ApiPropertyOptional({ example: 'vllm-0.10.1-fp16', maxLength: 100 })
  @IsAbsentOr()
  @IsString()
  @Length(1, 100)
  @Matches(NO_CONTROL_CHARACTERS, { message: 'version must not contain control characters' })
  version?: string;

  @ServingConfigObject("The endpoint's new serving configuration: it becomes the next configuration version.")
  config?: CreateServingConfigDto;

  @ApiPropertyOptional({
    example: '2026-12-03T14:00:00Z',
    description: 'When the deployment took effect (ISO 8601, default now; not in the future).',
  })
  @IsAbsentOr()
  @IsTimestamp()
  effectiveAt?: string;

  @ApiPropertyOptional({ type: DeploymentSettingsDto })
  @IsAbsentOr()
  @IsObject({ message: 'settings must be a JSON object' })
  @ValidateNested()
  @Type(() => DeploymentSettingsDto)
  settings?: DeploymentSettingsDto;
}

export class ListDeploymentsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  endpointId?: string;

  @ApiPropertyOptional({
    enum: [...DEPLOYMENT_VERDICTS, 'pending'],
    isArray: true,
    description: 'Any of these verdicts (`pending`: still measuring).',
  })
  @QueryArray(DEPLOYMENT_VERDICTS.length + 1)
  @IsIn([...DEPLOYMENT_VERDICTS, 'pending'], { each: true })
  verdict?: Array<DeploymentVerdictName | 'pending'>;

  @ApiPropertyOptional({ example: '2026-01-01T00:00:00Z', description: 'Effective at or after (ISO 8601).' })
  @IsOptional()
  @IsTimestamp()
  from?: string;

  @ApiPropertyOptional({ example: '2026-02-01T00:00:00Z', description: 'Effective before (ISO 8601).' })
  @IsOptional()
  @IsTimestamp()
  to?: string;
}

export class DeploymentSettingsViewDto {
  @ApiProperty() runsPerProfile!: number;
  @ApiProperty({ type: [String], format: 'uuid' }) profileIds!: string[];
  @ApiProperty() firstRunDelayS!: number;
  @ApiProperty() baselineRuns!: number;
  @ApiProperty() threshold!: number;
  @ApiProperty() includeSaturated!: boolean;
}

export class DeploymentRunDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) profileId!: string | null;
  @ApiProperty({ enum: RUN_STATUSES }) status!: RunStatusName;
}

export class DeploymentSweepDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) profileId!: string | null;
  @ApiProperty({ enum: SWEEP_STATUSES }) status!: SweepStatusName;
}

export class DeploymentDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) endpointId!: string;
  @ApiProperty({ example: 'moved to FP16 weights' }) label!: string;
  @ApiProperty({ type: String, nullable: true }) version!: string | null;
  @ApiProperty({
    type: ServingConfigDto,
    nullable: true,
    description: 'The serving configuration version this deployment added, if it brought one.',
  })
  config!: ServingConfigDto | null;
  @ApiProperty() effectiveAt!: Date;
  @ApiProperty({ type: DeploymentSettingsViewDto }) settings!: DeploymentSettingsViewDto;
  @ApiProperty({
    enum: [...DEPLOYMENT_VERDICTS, 'pending'],
    description:
      '`pending` while the post-deployment runs are measured; `verified`: no metric moved by more than the threshold; `no_baseline`: nothing before the deployment to compare with.',
  })
  verdict!: DeploymentVerdictName | 'pending';
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description:
      'Per profile: baseline and candidate run ids, `decidedBy` (the judged rows that made its verdict), and per metric the baseline and candidate values, the relative delta, its Bonferroni-corrected bootstrap `interval` (calls a change), its 90% `equivalenceInterval` (calls no change), `judged` and the verdict, and `explanations` (the diagnostics that changed significantly, e.g. "preemptions 0 -> 37 per run"; see the comparison\'s `explanations`); `method` names the judged rows, the family-wise alpha and the minimum effect.',
  })
  verification!: DeploymentVerification | null;
  @ApiProperty({ type: Date, nullable: true }) verifiedAt!: Date | null;
  @ApiProperty({
    type: [DeploymentRunDto],
    description: 'The post-deployment runs (of single-load profiles).',
  })
  runs!: DeploymentRunDto[];
  @ApiProperty({
    type: [DeploymentSweepDto],
    description:
      'The post-deployment capacity searches (of sweep profiles); each point is a run of GET /runs?sweepId.',
  })
  sweeps!: DeploymentSweepDto[];
  @ApiProperty() createdAt!: Date;
}
