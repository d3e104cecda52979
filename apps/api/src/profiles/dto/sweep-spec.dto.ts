import { createHash } from 'node:crypto';
import { EXAMPLE_TRACE } from '../../assets/dto/asset.dto';
import { SESSION_WORKLOAD_EXAMPLES } from './session-workload.dto';
import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import {
  SLO_METRICS,
  SLO_PERCENTILES,
  SLO_PRESETS,
  SWEEP_DIMENSIONS,
  SWEEP_LIMITS,
  sweepSpecSchema,
  type CapacitySlo,
  type SloMetric,
  type SloPercentile,
  type SloTarget,
  type SweepDimension,
} from '@teapot/contracts';
import { SchemaField } from '../../common/schema-field';

/*
 * These classes only document the sweep spec for OpenAPI: @teapot/contracts' sweepSpecSchema (the
 * one the CLI and the worker read it with) validates it, through SchemaField.
 */

export class SloTargetDto implements SloTarget {
  @ApiProperty({ enum: SLO_METRICS, example: 'ttft' }) metric!: SloMetric;
  @ApiProperty({ enum: SLO_PERCENTILES, example: 99 }) percentile!: SloPercentile;
  @ApiProperty({ exclusiveMinimum: true, minimum: 0, example: 2000, description: 'At or under, in ms.' })
  limitMs!: number;
}

export class CapacitySloDto implements CapacitySlo {
  @ApiPropertyOptional({
    enum: Object.keys(SLO_PRESETS),
    description:
      "MLPerf Inference's latency limits (P99 TTFT and TPOT) for a model and scenario; stored with its " +
      'targets expanded. Targets given beside it replace its own.',
  })
  preset?: string;

  @ApiPropertyOptional({
    type: [SloTargetDto],
    description:
      'Each must hold at the point (its percentile at or under its limit). Required without a preset.',
  })
  targets!: SloTargetDto[];

  @ApiPropertyOptional({
    minimum: 0,
    exclusiveMinimum: true,
    maximum: 1,
    description:
      'The share of requests that must meet every limit on their own (goodput); absent: reported, not judged.',
  })
  minGoodShare?: number;
}

const LOAD_DOC = `req/s for \`rate\` (open-loop arrivals, the profile's arrival process or Poisson), streams in flight for \`concurrency\`; above 0, at most ${SWEEP_LIMITS.load.max}.`;

export class PointsSweepSpecDto {
  @ApiProperty({ enum: ['points'] }) kind!: 'points';
  @ApiProperty({ enum: SWEEP_DIMENSIONS }) dimension!: SweepDimension;
  @ApiProperty({
    type: [Number],
    minItems: SWEEP_LIMITS.points.min,
    maxItems: SWEEP_LIMITS.points.max,
    example: [1, 2, 4, 8],
    description: `Each load to measure, strictly ascending: ${LOAD_DOC} Stops early at an over-saturated point.`,
  })
  points!: number[];
  @ApiPropertyOptional({ type: CapacitySloDto, description: 'Judge each point against it (optional).' })
  slo?: CapacitySloDto;
}

export class CapacitySweepSpecDto {
  @ApiProperty({ enum: ['capacity'] }) kind!: 'capacity';
  @ApiProperty({ enum: SWEEP_DIMENSIONS }) dimension!: SweepDimension;
  @ApiProperty({ type: CapacitySloDto }) slo!: CapacitySloDto;
  @ApiProperty({ example: 1, description: `The lowest load searched: ${LOAD_DOC}` }) lowest!: number;
  @ApiProperty({ example: 32, description: 'The highest load searched; above lowest.' }) highest!: number;
  @ApiPropertyOptional({
    minimum: SWEEP_LIMITS.tolerance.min,
    maximum: SWEEP_LIMITS.tolerance.max,
    default: SWEEP_LIMITS.tolerance.default,
    description: 'Stop once the bracket (highest load passed, lowest failed) is this narrow, relatively.',
  })
  tolerance!: number;
  @ApiPropertyOptional({
    type: 'integer',
    minimum: SWEEP_LIMITS.maxPoints.min,
    maximum: SWEEP_LIMITS.maxPoints.max,
    default: SWEEP_LIMITS.maxPoints.default,
    description: 'The most points the search measures.',
  })
  maxPoints!: number;
}

export const SWEEP_SPEC_EXAMPLES = {
  capacity: {
    summary: 'capacity at the MLPerf Llama 3.1 8B server SLO (P99 TTFT 2 s, TPOT 100 ms), 1 to 32 req/s',
    value: {
      kind: 'capacity',
      dimension: 'rate',
      slo: { preset: 'mlperf-llama3.1-8b-server', minGoodShare: 0.99 },
      lowest: 1,
      highest: 32,
    },
  },
  points: {
    summary: 'four request rates, each judged against a P99 TTFT of 500 ms',
    value: {
      kind: 'points',
      dimension: 'rate',
      points: [2, 4, 8, 16],
      slo: { targets: [{ metric: 'ttft', percentile: 99, limitMs: 500 }] },
    },
  },
};

const EXAMPLE_PROFILE = {
  endpointId: '0b6f1f5e-4c1a-4a43-9a57-1f1f3b8f6a10',
  workload: { kind: 'synthetic', inputTokens: 512, outputTokens: 256 },
  load: { kind: 'open', ratePerS: 4, arrival: 'poisson' },
};

/** POST /profiles examples: single-load profiles of each workload shape and the two kinds of sweep profile. */
export const PROFILE_BODY_EXAMPLES = {
  single: {
    summary: 'One load: 8 streams, 200 requests, every 6 hours',
    value: {
      ...EXAMPLE_PROFILE,
      name: 'chat-c8',
      load: { kind: 'closed', concurrency: 8 },
      requestCount: 200,
      scheduleCron: '0 */6 * * *',
    },
  },
  capacity: {
    summary: `Daily sweep: ${SWEEP_SPEC_EXAMPLES.capacity.summary}`,
    value: {
      ...EXAMPLE_PROFILE,
      name: 'chat-capacity',
      requestCount: 300,
      durationS: 120,
      scheduleIntervalS: 86_400,
      sweep: SWEEP_SPEC_EXAMPLES.capacity.value,
    },
  },
  multiTurn: {
    summary:
      'Chat sessions of 4 turns, a shared system prompt and ~2 s to think between turns, 8 sessions in flight',
    value: {
      ...EXAMPLE_PROFILE,
      name: 'chat-sessions',
      workload: SESSION_WORKLOAD_EXAMPLES.multiTurn,
      load: { kind: 'closed', concurrency: 8 },
      requestCount: 200,
    },
  },
  sharedPrefix: {
    summary: '8 prefixes of 1024 tokens, each reused by 16 requests, interleaved',
    value: {
      ...EXAMPLE_PROFILE,
      name: 'rag-prefixes',
      workload: SESSION_WORKLOAD_EXAMPLES.sharedPrefix,
      requestCount: 128,
    },
  },
  dataset: {
    summary: 'Conversations of an uploaded ShareGPT dataset (POST /assets), every turn sent',
    value: {
      ...EXAMPLE_PROFILE,
      name: 'sharegpt-sessions',
      workload: SESSION_WORKLOAD_EXAMPLES.dataset,
      requestCount: 500,
    },
  },
  uploadedTokenizer: {
    summary:
      "Prompts of exactly 512 of the model's tokens, counted with its tokenizer.json uploaded once (POST /assets?kind=tokenizer)",
    value: {
      ...EXAMPLE_PROFILE,
      name: 'chat-exact-tokens',
      workload: { kind: 'synthetic', inputTokens: 512, outputTokens: 256 },
      tokenizer: { sha256: '3f0d24e0d0e5b0a2b1d9c6d1e51e8d5b8c8f3d9b9e3a3b1c5f2f0a9d6e7c8b4a' },
      requestCount: 200,
    },
  },
  trace: {
    summary:
      "The trace of POST /assets' example (?kind=trace) replayed at twice its speed, at most 64 requests in flight",
    value: {
      ...EXAMPLE_PROFILE,
      name: 'mooncake-replay',
      workload: {
        kind: 'trace-asset',
        sha256: createHash('sha256').update(EXAMPLE_TRACE).digest('hex'),
        speed: 2,
      },
      load: { kind: 'open', ratePerS: 1, arrival: 'poisson', maxConcurrency: 64 },
      durationS: 600,
    },
  },
  points: {
    summary: `Sweep on demand (POST /sweeps): ${SWEEP_SPEC_EXAMPLES.points.summary}`,
    value: {
      ...EXAMPLE_PROFILE,
      name: 'chat-rates',
      requestCount: 200,
      sweep: SWEEP_SPEC_EXAMPLES.points.value,
    },
  },
};

export const sweepSpecSchemaDoc = {
  oneOf: [{ $ref: getSchemaPath(PointsSweepSpecDto) }, { $ref: getSchemaPath(CapacitySweepSpecDto) }],
  discriminator: { propertyName: 'kind' },
};

const SWEEP_DESCRIPTION =
  'Makes this a sweep profile: each slot (or POST /sweeps) measures a load sweep or a capacity search, ' +
  "one run per point at the point's load (the profile's workload and bounds). `points`: each listed load. " +
  '`capacity`: the highest load in [lowest, highest] meeting the SLO, to within tolerance, in at most ' +
  'maxPoints points. Validated by the same schema as `teapot sweep`. Scheduled sweeps must fit in their ' +
  'interval (see the API README, "Sweep duration"). null: a single-load profile.';

/** The `sweep` field of a profile body: null or a SweepSpec, parsed once by sweepSpecSchema. */
export function SweepSpecField(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      ...sweepSpecSchemaDoc,
      nullable: true,
      description: SWEEP_DESCRIPTION,
      example: SWEEP_SPEC_EXAMPLES.capacity.value,
    }),
    IsOptional(),
    SchemaField(sweepSpecSchema),
  );
}
