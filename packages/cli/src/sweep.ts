import { writeFile } from 'node:fs/promises';
import {
  nextSweepStep,
  pointFigures,
  pointRequestsOf,
  requestLimits,
  sweepOutcome,
  type SweepOutcome,
  type SweepPoint,
} from '@teapot/capacity';
import { runBenchmarkInThread, type Load, type RunResult } from '@teapot/measure';
import type { SweepSpec } from '@teapot/run-definitions';
import { BenchError } from './bench-error';
import type { CliIo } from './cli';
import { table } from './report';
import { autoRequests, type SweepArgs } from './sweep-args';
import { loadTokenizer, loadWorkload, openTarget } from './target';

/** Exit codes: 0 found what it was asked (or measured every point), 1 could not run, 2 SLO missed at the lowest load. */
export const SWEEP_EXIT = { ok: 0, error: 1, sloMissed: 2 } as const;

/** `teapot sweep`: each point a `teapot bench` run, the next load chosen by @teapot/capacity. */
export async function sweep(args: SweepArgs, io: CliIo): Promise<number> {
  const { bench, spec, cost } = args;
  const workload = await loadWorkload(bench);
  const tokenizer = loadTokenizer(bench);
  const target = await openTarget(bench, io.stderr, 'sweep');
  const points: SweepPoint[] = [];
  let ended: 'endpoint_failed' | 'aborted' | undefined;
  try {
    const limits = spec.slo ? requestLimits(spec.slo) : undefined;
    io.stderr.write(`teapot sweep: ${describeSpec(spec)}\n`);
    for (;;) {
      const step = nextSweepStep(spec, points);
      if (step.kind === 'done') break;
      const load = loadOf(spec, step.load, args.arrivals);
      const result: RunResult = await runBenchmarkInThread({
        target: {
          baseUrl: target.baseUrl,
          apiKind: bench.apiKind,
          model: target.model,
          headers: bench.headers,
        },
        workload,
        load,
        requests: args.autoRequests ? autoRequests(spec, step.load) : bench.requests,
        durationS: bench.durationS,
        warmupRequests: bench.warmupRequests,
        seed: bench.seed,
        timeoutMs: bench.timeoutMs,
        forceOutputLength: bench.forceOutputLength,
        transport: bench.transport,
        tokenizer,
        slo: limits,
        signal: io.signal,
      });
      if (result.aborted) {
        ended = 'aborted';
        break;
      }
      const point = pointFigures(
        {
          dimension: spec.dimension,
          load: step.load,
          summary: result.summary,
          requests: pointRequestsOf(result.requests, spec.slo),
        },
        spec.slo,
        cost,
      );
      points.push(point);
      io.stderr.write(`teapot sweep: point ${points.length}: ${describePoint(point)}\n`);
      if (result.summary.requests.succeeded === 0) {
        io.stderr.write(`teapot sweep: every request of that point failed; is ${target.baseUrl} up?\n`);
        ended = 'endpoint_failed';
        break;
      }
    }
  } finally {
    await target.close();
  }
  const outcome = sweepOutcome(spec, points, ended);
  (bench.json === '-' ? io.stderr : io.stdout).write(renderSweep(spec, points, outcome));
  if (bench.json !== null) {
    const json = `${JSON.stringify(
      {
        teapot: { command: 'sweep', format: 1 },
        target: { baseUrl: target.baseUrl, model: target.model, simulator: target.simulated },
        spec,
        cost,
        points,
        outcome,
      },
      null,
      2,
    )}\n`;
    if (bench.json === '-') io.stdout.write(json);
    else
      await writeFile(bench.json, json).catch((error: NodeJS.ErrnoException) => {
        throw new BenchError(`--json: cannot write ${bench.json} (${error.code ?? error})`);
      });
  }
  if (ended === 'endpoint_failed') return SWEEP_EXIT.error;
  return outcome.reason === 'below_lowest' ? SWEEP_EXIT.sloMissed : SWEEP_EXIT.ok;
}

/** A point's load: open loop at the rate with the flags' arrival process, or closed loop at the streams. */
function loadOf(spec: SweepSpec, value: number, arrivals: SweepArgs['arrivals']): Load {
  if (spec.dimension === 'concurrency')
    return { kind: 'closed', concurrency: Math.max(1, Math.round(value)) };
  return { kind: 'open', ratePerS: value, ...arrivals };
}

function describeSpec(spec: SweepSpec): string {
  const unit = unitOf(spec);
  const slo = spec.slo
    ? ` against ${spec.slo.preset ?? 'the SLO'} (${spec.slo.targets.map((t) => `${t.metric} p${t.percentile} <= ${t.limitMs} ms`).join(', ')}${spec.slo.minGoodShare === undefined ? '' : `, goodput >= ${spec.slo.minGoodShare * 100}%`})`
    : '';
  if (spec.kind === 'points') return `measuring ${spec.points.join(', ')} ${unit}${slo}`;
  return `searching ${spec.lowest}-${spec.highest} ${unit} for capacity within ${spec.tolerance * 100}%, at most ${spec.maxPoints} points${slo}`;
}

function describePoint(point: SweepPoint): string {
  const verdict = point.met === null ? '' : point.met ? ' pass' : ` FAIL (${point.missed.join('; ')})`;
  const targets = point.targets.map((t) => `${t.metric} p${t.percentile} ${fmt(t.valueMs)}/${t.limitMs} ms`);
  return (
    [
      `${fmt(point.load)} ${point.dimension === 'rate' ? 'req/s' : 'streams'}`,
      `achieved ${fmt(point.achievedRps)} req/s`,
      `${fmt(point.outputTokensPerS)} tok/s`,
      ...targets,
    ].join(' · ') + verdict
  );
}

/** The points as a table and the outcome line. */
export function renderSweep(spec: SweepSpec, points: readonly SweepPoint[], outcome: SweepOutcome): string {
  const unit = unitOf(spec);
  const head = [
    '#',
    `load (${unit})`,
    'req/s',
    'tok/s',
    'tok/s/user',
    'tok/s/GPU',
    '$/Mtok',
    ...(spec.slo?.targets ?? []).map((t) => `${t.metric} p${t.percentile} ms`),
    'goodput',
    '',
  ];
  const rows = points.map((p, i) => [
    String(i + 1),
    fmt(p.load),
    fmt(p.achievedRps),
    fmt(p.outputTokensPerS),
    fmt(p.tokensPerSPerUser),
    fmt(p.tokensPerSPerGpu),
    p.costPerMillionOutputTokensUsd === null ? '-' : p.costPerMillionOutputTokensUsd.toFixed(3),
    ...p.targets.map((t) => fmt(t.valueMs)),
    p.goodShare === null ? '-' : `${fmt(p.goodShare * 100)}%`,
    [
      p.met === null ? '' : p.met ? 'pass' : 'FAIL',
      p.saturation.saturated ? 'saturated' : '',
      outcome.frontier.includes(i) ? 'frontier' : '',
    ]
      .filter(Boolean)
      .join(' '),
  ]);
  const { capacity, bracket } = outcome;
  const cost = outcome.costPerMillionOutputTokensUsdAtCapacity;
  const found =
    capacity === null
      ? spec.slo
        ? 'no capacity: no measured load met the SLO'
        : 'no SLO, so no capacity'
      : `capacity ${fmt(capacity)} ${unit}` +
        (bracket.failed === null ? '' : ` (fails at ${fmt(bracket.failed)})`) +
        (cost === null ? '' : ` · $${cost.toFixed(3)} per million output tokens`);
  return `${table([head, ...rows]).join('\n')}\n\n${found} · stopped: ${outcome.reason.replace(/_/g, ' ')} · ${points.length} points\n`;
}

function unitOf(spec: SweepSpec): string {
  return spec.dimension === 'rate' ? 'req/s' : 'streams';
}

function fmt(value: number | null): string {
  if (value === null || !Number.isFinite(value)) return '-';
  return Number(value.toPrecision(value >= 100 ? 5 : 3)).toString();
}
