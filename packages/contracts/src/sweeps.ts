import {
  SLO_METRICS,
  SLO_PERCENTILES,
  SWEEP_DIMENSIONS,
  type CapacitySlo,
  type SloTarget,
  type SweepSpec,
} from '@teapot/run-definitions';
import { z } from 'zod';

/**
 * SLOs named after MLPerf Inference's latency limits for its LLM benchmarks (99th percentile TTFT and
 * TPOT): `server` is the scenario's default, `interactive` its tighter one.
 */
export const SLO_PRESETS: Readonly<Record<string, CapacitySlo>> = {
  'mlperf-llama3.1-8b-server': mlperf('mlperf-llama3.1-8b-server', 2000, 100),
  'mlperf-llama3.1-8b-interactive': mlperf('mlperf-llama3.1-8b-interactive', 500, 30),
  'mlperf-llama2-70b-server': mlperf('mlperf-llama2-70b-server', 2000, 200),
  'mlperf-llama2-70b-interactive': mlperf('mlperf-llama2-70b-interactive', 450, 40),
};

function mlperf(preset: string, ttftMs: number, tpotMs: number): CapacitySlo {
  return {
    preset,
    targets: [
      { metric: 'ttft', percentile: 99, limitMs: ttftMs },
      { metric: 'tpot', percentile: 99, limitMs: tpotMs },
    ],
  };
}

/** Bounds a sweep is validated against (the API's 400s and the worker's reading of a stored one). */
export const SWEEP_LIMITS = {
  points: { min: 1, max: 32 },
  maxPoints: { default: 8, min: 2, max: 32 },
  tolerance: { default: 0.05, min: 0.005, max: 0.5 },
  /** A load above this (req/s or streams) is a typo, not a benchmark. */
  load: { max: 100_000 },
} as const;

const load = z.number().positive().max(SWEEP_LIMITS.load.max);

const sloTargetSchema: z.ZodType<SloTarget> = z.object({
  metric: z.enum(SLO_METRICS),
  percentile: z.union(SLO_PERCENTILES.map((p) => z.literal(p))),
  limitMs: z.number().positive(),
});

/** An SLO as written: a preset's name, or targets of its own (a preset's targets may be overridden). */
export const capacitySloSchema: z.ZodType<CapacitySlo> = z
  .object({
    preset: z.string().optional(),
    targets: z
      .array(sloTargetSchema)
      .max(SLO_METRICS.length * SLO_PERCENTILES.length)
      .optional(),
    minGoodShare: z.number().gt(0).max(1).optional(),
  })
  .transform((slo, ctx) => {
    const base = slo.preset === undefined ? undefined : SLO_PRESETS[slo.preset];
    if (slo.preset !== undefined && base === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['preset'],
        message: `unknown SLO preset "${slo.preset}"; use one of ${Object.keys(SLO_PRESETS).join(', ')}`,
      });
      return z.NEVER;
    }
    const targets = slo.targets ?? base?.targets ?? [];
    if (targets.length === 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['targets'],
        message: 'an SLO needs at least one target or a preset',
      });
      return z.NEVER;
    }
    const seen = new Set<string>();
    for (const [i, t] of targets.entries()) {
      const key = `${t.metric}.p${t.percentile}`;
      if (seen.has(key)) {
        ctx.addIssue({ code: 'custom', path: ['targets', i], message: `${key} is bounded twice` });
        return z.NEVER;
      }
      seen.add(key);
    }
    const out: CapacitySlo = { targets };
    if (slo.preset !== undefined) out.preset = slo.preset;
    if (slo.minGoodShare !== undefined) out.minGoodShare = slo.minGoodShare;
    return out;
  });

export const sweepSpecSchema: z.ZodType<SweepSpec> = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('points'),
    dimension: z.enum(SWEEP_DIMENSIONS),
    points: z
      .array(load)
      .min(SWEEP_LIMITS.points.min)
      .max(SWEEP_LIMITS.points.max)
      .superRefine((points, ctx) => {
        for (let i = 1; i < points.length; i++) {
          if (points[i] <= points[i - 1]) {
            ctx.addIssue({
              code: 'custom',
              path: [i],
              message: `points must be strictly ascending: ${points[i]} follows ${points[i - 1]}`,
            });
            return;
          }
        }
      }),
    slo: capacitySloSchema.optional(),
  }),
  z
    .object({
      kind: z.literal('capacity'),
      dimension: z.enum(SWEEP_DIMENSIONS),
      slo: capacitySloSchema,
      lowest: load,
      highest: load,
      tolerance: z
        .number()
        .min(SWEEP_LIMITS.tolerance.min)
        .max(SWEEP_LIMITS.tolerance.max)
        .default(SWEEP_LIMITS.tolerance.default),
      maxPoints: z
        .number()
        .int()
        .min(SWEEP_LIMITS.maxPoints.min)
        .max(SWEEP_LIMITS.maxPoints.max)
        .default(SWEEP_LIMITS.maxPoints.default),
    })
    .refine((spec) => spec.highest > spec.lowest, {
      path: ['highest'],
      message: 'highest must be above lowest',
    }),
]) as unknown as z.ZodType<SweepSpec>;

/** The most points a sweep can measure: what its duration is bounded by. */
export function maxSweepPoints(spec: SweepSpec): number {
  return spec.kind === 'points' ? spec.points.length : spec.maxPoints;
}
