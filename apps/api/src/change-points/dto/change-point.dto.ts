import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  CHANGE_POINT_KINDS,
  CHANGE_POINT_MODES,
  MAX_CHANGE_POINTS_LIMIT,
  type ChangePointKind,
  type ChangePointMode,
} from '@teapot/analysis';
import { SERIES_METRIC_NAMES, STATISTICS, type Statistic } from '@teapot/contracts';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsISO8601, IsOptional, Max, Min } from 'class-validator';
import { QueryUuids } from '../../common/query';
import { ChangePointAttributionDto } from './change-point-attribution.dto';

const MAX_IDS = 20;

/** A run or a capacity search that may be absent: a change point names one or the other. */
const OptionalId = (description: string) =>
  ApiProperty({ type: String, format: 'uuid', nullable: true, description });

export class ChangePointQueryDto {
  @QueryUuids(MAX_IDS, 'Any of these endpoints (repeatable).')
  endpointId?: string[];

  @QueryUuids(MAX_IDS, 'Any of these profiles (repeatable).')
  profileId?: string[];

  @ApiPropertyOptional({
    enum: SERIES_METRIC_NAMES,
    example: 'itl',
    description:
      'A metric of the catalogue, or `capacity` / `cost_per_mtok` (one value per finished capacity search).',
  })
  @IsOptional()
  @IsIn(SERIES_METRIC_NAMES)
  metric?: string;

  @ApiPropertyOptional({ enum: STATISTICS, example: 'p99', description: 'A statistic the metric offers.' })
  @IsOptional()
  @IsIn(STATISTICS)
  statistic?: Statistic;

  @ApiPropertyOptional({
    enum: CHANGE_POINT_MODES,
    example: 'robust',
    description:
      '`otava` (E-Divisive + t-test, as Apache Otava) or `robust` (ranks; steps and drifts). Default: both.',
  })
  @IsOptional()
  @IsIn(CHANGE_POINT_MODES)
  mode?: ChangePointMode;

  @ApiPropertyOptional({
    enum: CHANGE_POINT_KINDS,
    example: 'step',
    description: 'Steps or drifts (drifts: robust mode).',
  })
  @IsOptional()
  @IsIn(CHANGE_POINT_KINDS)
  kind?: ChangePointKind;

  @ApiPropertyOptional({ example: '2026-09-01T00:00:00Z', description: 'Changes at or after (ISO 8601).' })
  @IsOptional()
  @IsISO8601({ strict: true })
  from?: string;

  @ApiPropertyOptional({ example: '2026-12-01T00:00:00Z', description: 'Changes before (ISO 8601).' })
  @IsOptional()
  @IsISO8601({ strict: true })
  to?: string;

  @ApiPropertyOptional({
    example: 100,
    description: `At most this many, newest first (1-${MAX_CHANGE_POINTS_LIMIT}, default 100).`,
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_CHANGE_POINTS_LIMIT)
  limit?: number;
}

class ChangePointDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) endpointId!: string;
  @ApiProperty({ format: 'uuid' }) profileId!: string;
  @ApiProperty({ enum: SERIES_METRIC_NAMES, example: 'itl' }) metric!: string;
  @ApiProperty({ enum: STATISTICS, example: 'p99' }) statistic!: string;
  @ApiProperty({ example: 'ms' }) unit!: string;
  @ApiProperty({ enum: CHANGE_POINT_MODES, example: 'robust' }) mode!: string;
  @ApiProperty({ enum: CHANGE_POINT_KINDS, example: 'step' }) kind!: string;
  @ApiProperty({
    example: '2026-11-30T06:00:00.000Z',
    description: 'Start of the first run after the change (a drift: of its first run).',
  })
  at!: Date;
  @OptionalId('The first run after the change; null in a capacity or cost series.') runId!: string | null;
  @OptionalId('The last run before it.') previousRunId!: string | null;
  @OptionalId("A drift's last run.") endRunId!: string | null;
  @ApiProperty({ type: Date, nullable: true, description: "A drift's last run's start." })
  endAt!: Date | null;
  /** A capacity or cost series is of capacity searches: they stand where a run metric's runs do. */
  @OptionalId('In a capacity or cost series: the first capacity search after the change.')
  sweepId!: string | null;
  @OptionalId('The search before it.') previousSweepId!: string | null;
  @OptionalId("A drift's last search.") endSweepId!: string | null;
  @ApiProperty({ example: 212, description: 'Runs since the previous change.' }) runsBefore!: number;
  @ApiProperty({ example: 87, description: 'Runs until the next change (a drift: its length).' })
  runsAfter!: number;
  @ApiProperty({ example: 11.9, description: 'Level before (in `unit`).' }) meanBefore!: number;
  @ApiProperty({ example: 14.3, description: 'Level after (in `unit`).' }) meanAfter!: number;
  @ApiProperty({ example: 0.2, description: 'meanAfter / meanBefore - 1.' }) magnitude!: number;
  @ApiProperty({ example: 1.2e-9 }) pValue!: number;
  @ApiProperty({ description: 'When it was first stored.' }) detectedAt!: Date;
  @ApiProperty({ description: 'When a recomputation last confirmed it.' }) updatedAt!: Date;
  @ApiProperty({
    type: ChangePointAttributionDto,
    description:
      'The serving-configuration versions and deployments around the change, or that there were none.',
  })
  attribution!: ChangePointAttributionDto;
}

export class ChangePointDetailDto extends ChangePointDto {
  @ApiProperty({
    type: Date,
    nullable: true,
    description: 'When later runs no longer showed it (`changepoint.retracted`); null while it stands.',
  })
  retractedAt!: Date | null;
}

export class ChangePointListDto {
  @ApiProperty({ type: [ChangePointDto] }) changePoints!: ChangePointDto[];
  @ApiProperty({ example: false, description: 'More matched than `limit`: narrow the filters or the range.' })
  truncated!: boolean;
}
