import { ApiExtraModels, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { Saturation, SweepPoint, TargetResult } from '@teapot/capacity';
import { IsIn, IsUUID } from 'class-validator';
import {
  RUN_ERROR_CLASSES,
  RUN_STATUSES,
  SLO_METRICS,
  SLO_PERCENTILES,
  SWEEP_DIMENSIONS,
  SWEEP_STATUSES,
  SWEEP_STOP_REASONS,
  type CapacitySlo,
  type RunErrorClass,
  type RunStatusName,
  type SloMetric,
  type SloPercentile,
  type SweepDimension,
  type SweepSpec,
  type SweepStatusName,
  type SweepStopReason,
} from '@teapot/contracts';
import { MeasurementsPageQueryDto } from '../../common/pagination';
import { QueryArray } from '../../common/query';
import {
  CapacitySloDto,
  CapacitySweepSpecDto,
  PointsSweepSpecDto,
  sweepSpecSchemaDoc,
} from '../../profiles/dto/sweep-spec.dto';
import { RUN_TRIGGERS } from '../../runs/dto/run.dto';

/** What a sweep's loads are counted in: requests per second, or requests kept in flight. */
export const LOAD_UNITS = { rate: 'req/s', concurrency: 'streams' } as const satisfies Record<
  SweepDimension,
  string
>;
export type LoadUnit = (typeof LOAD_UNITS)[SweepDimension];

export class StartSweepDto {
  @ApiProperty({ format: 'uuid', description: 'Sweep this sweep profile now against its endpoint.' })
  @IsUUID()
  profileId!: string;
}

export class ListSweepsQueryDto extends MeasurementsPageQueryDto {
  @ApiPropertyOptional({ enum: SWEEP_STATUSES, isArray: true, description: 'Any of these statuses.' })
  @QueryArray(SWEEP_STATUSES.length)
  @IsIn(SWEEP_STATUSES, { each: true })
  status?: SweepStatusName[];
}

export class BracketDto {
  @ApiProperty({ type: Number, nullable: true, description: 'The highest load measured that met the SLO.' })
  passed!: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'The lowest load measured that missed it.' })
  failed!: number | null;
}

@ApiExtraModels(PointsSweepSpecDto, CapacitySweepSpecDto)
export class SweepDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) endpointId!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) profileId!: string | null;
  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'The serving configuration live when queued (its price makes the cost).',
  })
  configId!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) deploymentId!: string | null;
  @ApiProperty({ enum: RUN_TRIGGERS }) trigger!: (typeof RUN_TRIGGERS)[number];
  @ApiProperty({ enum: SWEEP_STATUSES }) status!: SweepStatusName;
  @ApiProperty({ ...sweepSpecSchemaDoc, description: 'What was asked, as queued (a preset expanded).' })
  spec!: SweepSpec;
  @ApiProperty({ enum: SWEEP_DIMENSIONS }) dimension!: SweepDimension;
  @ApiProperty({
    enum: Object.values(LOAD_UNITS),
    description: 'The unit of every load of this sweep (offered loads, capacity, bracket).',
  })
  unit!: LoadUnit;
  @ApiProperty({
    type: CapacitySloDto,
    nullable: true,
    description: 'The SLO points are judged by; null: none.',
  })
  slo!: CapacitySlo | null;
  @ApiProperty({
    enum: SWEEP_STOP_REASONS,
    nullable: true,
    description:
      'Why it ended: `completed` (every listed point), `converged` (bracket within tolerance), `over_saturated` ' +
      '(a point could not keep up with its offered load), `below_lowest` (the SLO failed at the lowest load), ' +
      '`above_highest` (it held at the highest), `point_limit`, `endpoint_failed` (see error), `aborted`. ' +
      'null while running, or when the stored spec could not be read.',
  })
  stopReason!: SweepStopReason | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'The highest load found to meet the SLO, in `unit`; null when none did or there is no SLO.',
  })
  capacity!: number | null;
  @ApiProperty({ type: BracketDto }) bracket!: BracketDto;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'US dollars per million output tokens at capacity; null without a price or a capacity.',
  })
  costPerMillionOutputTokensUsdAtCapacity!: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'Why it failed or was aborted.' })
  error!: string | null;
  @ApiProperty({
    enum: RUN_ERROR_CLASSES,
    nullable: true,
    description:
      "The kind of cause (as a run's errorClass: `endpoint`, `config`, `worker_lost`, `stopped`, `internal`).",
  })
  errorClass!: RunErrorClass | null;
  @ApiProperty() queuedAt!: Date;
  @ApiProperty({ type: Date, nullable: true }) startedAt!: Date | null;
  @ApiProperty({ type: Date, nullable: true }) finishedAt!: Date | null;
}

export class TargetResultDto implements TargetResult {
  @ApiProperty({ enum: SLO_METRICS }) metric!: SloMetric;
  @ApiProperty({ enum: SLO_PERCENTILES }) percentile!: SloPercentile;
  @ApiProperty() limitMs!: number;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: "The run's exact percentile of the metric, ms; null: no request to take it from.",
  })
  valueMs!: number | null;
  @ApiProperty({ description: 'At or under the limit.' }) met!: boolean;
}

export class SaturationDto implements Saturation {
  @ApiProperty({ description: 'The endpoint fell behind the offered load: higher loads would only queue.' })
  saturated!: boolean;
  @ApiProperty({ type: String, nullable: true, description: 'Which sign said so, in words.' })
  reason!: string | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: "Median TTFT of the last third of requests over the middle third's (requests queueing).",
  })
  ttftGrowth!: number | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Completions per second over arrivals per second.',
  })
  completionRatio!: number | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Median late send of the last third, ms (the client).',
  })
  sendLagMs!: number | null;
}

/** A point's figures as the worker stored them with its run (runs.sweep_point: @teapot/capacity's SweepPoint). */
export class SweepPointFiguresDto implements SweepPoint {
  @ApiProperty({ enum: SWEEP_DIMENSIONS }) dimension!: SweepDimension;
  @ApiProperty({ description: "The offered load, in the sweep's unit." }) load!: number;
  @ApiProperty({ description: 'Measured requests (warm-up excluded).' }) requests!: number;
  @ApiProperty() succeeded!: number;
  @ApiProperty() failed!: number;
  @ApiProperty({ description: 'Completed requests per second of the measured window.' }) achievedRps!: number;
  @ApiProperty() outputTokensPerS!: number;
  @ApiProperty({ type: Number, nullable: true, description: 'Streams in flight on average.' })
  meanInFlight!: number | null;
  @ApiProperty({ type: [TargetResultDto], description: "Each SLO target's value at this point." })
  targets!: TargetResultDto[];
  @ApiProperty({
    type: Number,
    nullable: true,
    description:
      'Share of measured requests that met every limit on their own (failures are not good); null without an SLO.',
  })
  goodShare!: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'Good requests per second.' })
  goodputRps!: number | null;
  @ApiProperty({ type: Boolean, nullable: true, description: 'Meets the SLO; null when the sweep has none.' })
  met!: boolean | null;
  @ApiProperty({ type: [String], description: 'Why it does not meet the SLO, in words.' })
  missed!: string[];
  @ApiProperty({ type: SaturationDto }) saturation!: SaturationDto;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Output tokens/s per stream in flight (per user).',
  })
  tokensPerSPerUser!: number | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Output tokens/s per GPU; null without a GPU count.',
  })
  tokensPerSPerGpu!: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'GPUs of the serving configuration.' })
  gpus!: number | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description:
      'US dollars per million output tokens at this throughput; null without a price or a GPU count.',
  })
  costPerMillionOutputTokensUsd!: number | null;
}

export class SweepPointDto {
  @ApiProperty({ description: 'From 0, in measuring order.' }) index!: number;
  @ApiProperty({ format: 'uuid', description: 'The run that measured it (GET /runs/{id}).' }) runId!: string;
  @ApiProperty({ enum: RUN_STATUSES }) runStatus!: RunStatusName;
  @ApiProperty({ type: Number, nullable: true, description: "The load offered, in the sweep's unit." })
  offered!: number | null;
  @ApiProperty({ type: SweepPointFiguresDto, nullable: true, description: 'null until the run is stored.' })
  figures!: SweepPointFiguresDto | null;
  @ApiProperty({
    description: 'On the frontier: no other point has both more tokens/s per user and per GPU.',
  })
  onFrontier!: boolean;
  @ApiProperty({ type: String, nullable: true }) error!: string | null;
  @ApiProperty({ enum: RUN_ERROR_CLASSES, nullable: true }) errorClass!: RunErrorClass | null;
  @ApiProperty({ type: Date, nullable: true }) finishedAt!: Date | null;
}

export class SweepDetailDto extends SweepDto {
  @ApiProperty({ type: [SweepPointDto], description: 'In measuring order.' })
  points!: SweepPointDto[];

  @ApiProperty({
    type: [Number],
    description:
      "Indexes of the Pareto-optimal points (vLLM's terms: output tokens/s per user against per GPU, both " +
      'higher is better; total tokens/s where the GPU count is unknown), in measuring order.',
  })
  frontier!: number[];
}
