import { UsageError, oneOf, positiveNumber, readFlags, type FlagOptions } from '@teapot/command-line';
import { sweepSpecSchema } from '@teapot/contracts';
import type { CostBasis } from '@teapot/capacity';
import type { CapacitySlo, SloPercentile, SloTarget, SweepSpec } from '@teapot/run-definitions';
import { BENCH_FLAGS, benchArgsOf, type BenchArgs } from './args';

/** The flags `teapot sweep` adds to bench's: each takes a value. */
const SWEEP_FLAG_NAMES = [
  'dimension',
  'points',
  'lowest',
  'highest',
  'tolerance',
  'max-points',
  'slo-preset',
  'min-good-share',
  'gpus',
  'usd-per-gpu-hour',
] as const;
const SWEEP_FLAGS = Object.fromEntries(SWEEP_FLAG_NAMES.map((name) => [name, { type: 'string' }])) as {
  [K in (typeof SWEEP_FLAG_NAMES)[number]]: { type: 'string' };
} satisfies FlagOptions;

export interface SweepArgs {
  bench: BenchArgs;
  spec: SweepSpec;
  cost: CostBasis;
  /** How a rate point's requests arrive. */
  arrivals: { arrival: 'poisson' | 'gamma' | 'constant'; burstiness?: number };
  /** Neither --requests nor --duration: each point's request count follows its load (autoRequests). */
  autoRequests: boolean;
}

export const SWEEP_DEFAULTS = { lowest: 1, highest: 64 } as const;

/**
 * A point's requests when the flags set none: about POINT_SECONDS of arrivals (or rounds of the
 * streams), within bounds. A fixed count would spend minutes at 1 req/s and too few requests for a
 * steady P99 near capacity; a fixed duration would leave out the slowest requests of an overloaded point.
 */
export const AUTO_REQUESTS = { pointSeconds: 12, roundsPerStream: 8, min: 40, max: 600 } as const;

export function autoRequests(spec: Pick<SweepSpec, 'dimension'>, load: number): number {
  const wanted =
    spec.dimension === 'rate' ? load * AUTO_REQUESTS.pointSeconds : load * AUTO_REQUESTS.roundsPerStream;
  return Math.min(AUTO_REQUESTS.max, Math.max(AUTO_REQUESTS.min, Math.round(wanted)));
}

/** Where each field of a SweepSpec came from on the command line, for errors that name the flag. */
const FLAG_OF: Readonly<Record<string, string>> = {
  dimension: '--dimension',
  points: '--points',
  lowest: '--lowest',
  highest: '--highest',
  tolerance: '--tolerance',
  maxPoints: '--max-points',
  preset: '--slo-preset',
  targets: '--slo',
  minGoodShare: '--min-good-share',
};

const STAT_PERCENTILE: Readonly<Record<string, SloPercentile>> = {
  p50: 50,
  p90: 90,
  p95: 95,
  p99: 99,
  p999: 99.9,
};

/**
 * The flags after `teapot sweep`: every `teapot bench` flag but the load (the sweep sets it per point),
 * plus the sweep's. Validated into a SweepSpec by the same schema the REST API uses.
 */
export function parseSweepArgs(argv: string[], env: NodeJS.ProcessEnv = {}): SweepArgs {
  const values = readFlags(argv, { ...BENCH_FLAGS, ...SWEEP_FLAGS });
  for (const flag of ['concurrency', 'rate', 'max-concurrency', 'busy-poll'] as const) {
    if (values[flag] !== undefined)
      throw new UsageError(
        `--${flag}: a sweep sets the load of each point; use --points or --lowest/--highest`,
      );
  }
  if (values.trace !== undefined)
    throw new UsageError(
      '--trace: a trace brings its own arrival times, which a sweep cannot vary; replay it with teapot bench (--trace-speed scales it)',
    );
  // the arrival process shapes every rate point; bench's own parser would ask for --rate
  const { arrival: arrivalFlag, burstiness: burstinessFlag, ...benchValues } = values;
  const bench = benchArgsOf(benchValues, env);
  const auto = values.requests === undefined && values.duration === undefined;
  if (bench.help)
    return {
      bench,
      spec: { kind: 'points', dimension: 'rate', points: [1] },
      cost: noCost(),
      arrivals: { arrival: 'poisson' },
      autoRequests: auto,
    };
  const dimension = values.dimension ?? 'rate';
  if (dimension === 'concurrency') {
    for (const flag of ['arrival', 'burstiness'] as const)
      if (values[flag] !== undefined)
        throw new UsageError(`--${flag} shapes open-loop arrivals; it needs --dimension rate`);
  }
  const burstiness = number('--burstiness', burstinessFlag);
  const arrival =
    oneOf('--arrival', arrivalFlag, ['poisson', 'gamma', 'constant'] as const) ??
    (burstiness === undefined ? 'poisson' : 'gamma');
  if (burstiness !== undefined && arrival !== 'gamma')
    throw new UsageError(
      `--burstiness is the shape of gamma arrivals; it needs --arrival gamma, not ${arrival}`,
    );
  const slo = sloOf(bench, values['slo-preset'], values['min-good-share']);
  const raw =
    values.points !== undefined
      ? {
          kind: 'points',
          dimension,
          points: numberList('--points', values.points),
          ...(slo === undefined ? {} : { slo }),
        }
      : {
          kind: 'capacity',
          dimension,
          slo: slo ?? {},
          lowest: number('--lowest', values.lowest) ?? SWEEP_DEFAULTS.lowest,
          highest: number('--highest', values.highest) ?? SWEEP_DEFAULTS.highest,
          ...(values.tolerance === undefined ? {} : { tolerance: number('--tolerance', values.tolerance) }),
          ...(values['max-points'] === undefined
            ? {}
            : { maxPoints: number('--max-points', values['max-points']) }),
        };
  if (values.points !== undefined) {
    for (const flag of ['lowest', 'highest', 'tolerance', 'max-points'] as const)
      if (values[flag] !== undefined)
        throw new UsageError(`--${flag} belongs to a capacity search; --points lists the loads to measure`);
  }
  const parsed = sweepSpecSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = [...issue.path].reverse().find((key) => typeof key === 'string' && key in FLAG_OF);
    throw new UsageError(`${field === undefined ? '--slo' : FLAG_OF[field as string]}: ${issue.message}`);
  }
  // --slo gates already check each run in `teapot bench`; here they are the SLO's targets instead
  bench.slos = [];
  return {
    bench,
    arrivals: { arrival, burstiness },
    autoRequests: auto,
    spec: parsed.data,
    cost: {
      gpus: wholeOrNull('--gpus', values.gpus) ?? (bench.url === null ? bench.simulator.tp : null),
      usdPerGpuHour: number('--usd-per-gpu-hour', values['usd-per-gpu-hour']) ?? null,
    },
  };
}

/** --slo-preset, then --slo latency gates (METRIC_pNN_ms=N) as the SLO's own targets. */
function sloOf(
  bench: BenchArgs,
  preset: string | undefined,
  minGoodShare: string | undefined,
): object | undefined {
  const targets: SloTarget[] = [];
  for (const gate of bench.slos) {
    const percentile = gate.kind === 'latency' ? STAT_PERCENTILE[gate.stat] : undefined;
    if (gate.kind !== 'latency' || percentile === undefined)
      throw new UsageError(
        `--slo ${gate.name}: a sweep's SLO bounds a latency percentile (METRIC_pNN_ms=N, NN 50|90|95|99|999)`,
      );
    targets.push({ metric: gate.metric, percentile, limitMs: gate.maxMs });
  }
  if (preset === undefined && targets.length === 0 && minGoodShare === undefined) return undefined;
  const slo: Partial<CapacitySlo> = {};
  if (preset !== undefined) slo.preset = preset;
  if (targets.length > 0) slo.targets = targets;
  if (minGoodShare !== undefined) slo.minGoodShare = Number(minGoodShare);
  return slo;
}

function numberList(flag: string, raw: string): number[] {
  return raw.split(',').map((part) => {
    const value = Number(part.trim());
    if (part.trim() === '' || !Number.isFinite(value))
      throw new UsageError(`${flag}: expected numbers separated by commas, got "${raw}"`);
    return value;
  });
}

function number(flag: string, raw: string | undefined): number | undefined {
  return raw === undefined ? undefined : positiveNumber(flag, raw);
}

function wholeOrNull(flag: string, raw: string | undefined): number | null {
  const value = number(flag, raw);
  if (value === undefined) return null;
  if (!Number.isInteger(value)) throw new UsageError(`${flag}: expected a whole number, got "${raw}"`);
  return value;
}

function noCost(): CostBasis {
  return { gpus: null, usdPerGpuHour: null };
}
