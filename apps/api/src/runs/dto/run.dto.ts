import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ServerDiagnosticsDto } from './server-metrics.dto';
import { IsIn, IsOptional, IsUUID } from 'class-validator';
import {
  HEADLINES,
  RUN_ERROR_CLASSES,
  RUN_STATUSES,
  type ClientDiagnostics,
  type HeadlineFigures,
  type RunErrorClass,
  type RunStatusName,
} from '@teapot/contracts';
import { TRANSPORTS, type ClientHealth, type RunSummary, type Transport } from '@teapot/measure';
import { MeasurementsPageQueryDto } from '../../common/pagination';
import { IsTimestamp } from '../../common/validators';
import { QueryArray } from '../../common/query';
import { ServingConfigDto } from '../../serving-configs/dto/serving-config.dto';
import { ClientDiagnosticsDto } from './diagnostics.dto';

export const RUN_TRIGGERS = ['schedule', 'manual', 'deployment'] as const;

export class TriggerRunDto {
  @ApiProperty({ format: 'uuid', description: 'Run this profile now against its endpoint.' })
  @IsUUID()
  profileId!: string;
}

export class ListRunsQueryDto extends MeasurementsPageQueryDto {
  @ApiPropertyOptional({ enum: RUN_STATUSES, isArray: true, description: 'Any of these statuses.' })
  @QueryArray(RUN_STATUSES.length)
  @IsIn(RUN_STATUSES, { each: true })
  status?: RunStatusName[];

  @ApiPropertyOptional({ format: 'uuid', description: "This sweep's point runs." })
  @IsOptional()
  @IsUUID()
  sweepId?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    example: '2026-01-01T00:00:00Z',
    description: 'Queued at or after (ISO 8601).',
  })
  @IsOptional()
  @IsTimestamp()
  from?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    example: '2026-02-01T00:00:00Z',
    description: 'Queued before (ISO 8601).',
  })
  @IsOptional()
  @IsTimestamp()
  to?: string;
}

/** Every headline figure of the metric catalogue as a nullable number, declared for OpenAPI in a loop. */
const HeadlineFiguresDto = class {} as new () => HeadlineFigures;
for (const h of HEADLINES) {
  const unit = h.unit === 'fraction' ? '' : ` (${h.unit})`;
  ApiProperty({ type: Number, nullable: true, description: `${h.label}${unit} of the run.` })(
    HeadlineFiguresDto.prototype,
    h.field,
  );
}

export class RunDto extends HeadlineFiguresDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) endpointId!: string;
  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'The serving configuration live when queued.',
  })
  configId!: string | null;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) profileId!: string | null;
  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'The sweep this run is a point of (GET /sweeps/{id}); null for a single-load run.',
  })
  sweepId!: string | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: "The point's place in its sweep, from 0, in measuring order; null outside a sweep.",
  })
  sweepIndex!: number | null;
  @ApiProperty({ enum: RUN_STATUSES }) status!: RunStatusName;
  @ApiProperty({ enum: RUN_TRIGGERS }) trigger!: (typeof RUN_TRIGGERS)[number];
  @ApiProperty() queuedAt!: Date;
  @ApiProperty({ type: Date, nullable: true }) startedAt!: Date | null;
  @ApiProperty({ type: Date, nullable: true }) finishedAt!: Date | null;
  @ApiProperty() attempts!: number;
  @ApiProperty({ type: String, nullable: true, description: 'Why the run failed or was aborted.' }) error!:
    string | null;
  @ApiProperty({
    enum: RUN_ERROR_CLASSES,
    nullable: true,
    description:
      'The kind of cause `error` names; null when the run succeeded. `endpoint`: the run measured and ' +
      'requests failed (errorCounts says how). `config`: nothing was sent because the endpoint as stored ' +
      'cannot be measured from the worker (its URL refused by the URL policy, its auth headers unreadable). `worker_lost`: the worker process measuring it died, ' +
      'which says nothing about the endpoint. `stopped`: teapot stopped or skipped it on purpose ' +
      '(shutdown, start deadline passed, endpoint archived). `internal`: teapot could not prepare, ' +
      'queue, measure or store it.',
  })
  errorClass!: RunErrorClass | null;
  @ApiProperty({ type: Number, nullable: true }) durationUs!: number | null;
  @ApiProperty({ type: Number, nullable: true }) requestsSucceeded!: number | null;
  @ApiProperty({ type: Number, nullable: true }) requestsFailed!: number | null;
  @ApiProperty({ type: Number, nullable: true }) requestsIncomplete!: number | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'number' },
    description: 'Failed requests by error class.',
  })
  errorCounts!: unknown;
  @ApiProperty({
    type: Boolean,
    nullable: true,
    description:
      "The measuring client read the streams late enough that this run's tail latencies may show the client " +
      'rather than the endpoint: its estimated P99 timestamp error (clientHealth.timingErrorP99Ms, from how long ' +
      'its reads waited) is over 5 ms. clientHealth.saturatedReason says why and what to do. Compare such runs with care.',
  })
  clientSaturated!: boolean | null;
  @ApiProperty({
    enum: TRANSPORTS,
    nullable: true,
    description: "How the streams were read (the profile's transport); null until measured.",
  })
  transport!: Transport | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '0.2.0',
    description:
      'Version of the measurement package (@teapot/measure) that measured the run; null until measured.',
  })
  measureVersion!: string | null;
  @ApiProperty({
    type: ServerDiagnosticsDto,
    nullable: true,
    description:
      "What the server's own metrics said while the run measured (the endpoint's metricsUrl); null when the " +
      'endpoint has none. GET /runs/{id}/server-metrics has the series.',
  })
  serverDiagnostics!: ServerDiagnosticsDto | null;
}

export class RunDetailDto extends RunDto {
  @ApiProperty({
    type: 'object',
    nullable: true,
    additionalProperties: true,
    description:
      "The measurement package's RunSummary. Where the token counts came from: `tokenSources` (output: " +
      '`usage_delta`, `usage_final`, `tokenizer`, `chunk`), `promptTokenSources` (`usage`, `tokenizer`, `words`), ' +
      "`promptOverheadTokens` (what the server's chat template adds, when both counts exist) and `tokenizer` " +
      "(name, sha256 and size of the profile's tokenizer.json), by request.",
    example: {
      promptTokens: 12800,
      tokenSources: { usage_delta: 100 },
      promptTokenSources: { usage: 100 },
      promptOverheadTokens: { min: 28, max: 28 },
      tokenizer: {
        name: 'llama/tokenizer.json',
        sha256: 'b5dc333f5d365aedad2a86409967bdc730a871e2360a750d44b9df10201b6443',
        sizeBytes: 46698,
      },
    },
  })
  summary!: RunSummary | null;

  @ApiProperty({
    type: 'object',
    nullable: true,
    additionalProperties: true,
    description: "The measurement package's ClientHealth.",
  })
  clientHealth!: ClientHealth | null;

  @ApiProperty({
    type: ClientDiagnosticsDto,
    nullable: true,
    description:
      'What the per-token record shows of chunking, stalls and prefill interference; null before it is stored.',
  })
  clientDiagnostics!: ClientDiagnostics | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'The profile as it was when the run was queued.',
  })
  profileSnapshot!: unknown;

  @ApiProperty({ type: ServingConfigDto, nullable: true })
  config!: ServingConfigDto | null;

  @ApiProperty({ type: Date, nullable: true, description: 'Wall clock at the monotonic anchor of the run.' })
  wallAnchor!: Date | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'process.hrtime.bigint() at the anchor, decimal.',
  })
  monotonicAnchorNs!: string | null;

  @ApiProperty({ type: Boolean, nullable: true }) streamOptionsRequested!: boolean | null;
  @ApiProperty({
    type: Boolean,
    nullable: true,
    description: 'The server refused stream_options; counts came from elsewhere.',
  })
  streamOptionsRejected!: boolean | null;
  @ApiProperty({ type: Number, nullable: true }) eventLoopDelayP99Ms!: number | null;
  @ApiProperty({ type: Number, nullable: true }) eventLoopDelayMaxMs!: number | null;
  @ApiProperty({ type: String, nullable: true }) workerId!: string | null;
}
