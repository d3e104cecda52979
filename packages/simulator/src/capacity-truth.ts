import { percentile, type CapacitySlo, type SloMetric, type SweepDimension } from '@teapot/run-definitions';
import { resolveDeployment, type Deployment } from './latency-model';
import { replayLoad, type ReplayedRequest } from './replay';
import type { SchedulerOptions } from './scheduler';
import { resolveSettings, schedulerOptionsOf, type SimulatorOptions } from './settings';

export interface CapacityQuestion {
  deployment: Deployment;
  scheduler: SchedulerOptions;
  jitter: number;
  workload: { inputTokens: number; outputTokens: number };
  dimension: SweepDimension;
  /** How a rate's requests arrive (ignored for concurrency). */
  arrival?: { arrival: 'poisson' | 'gamma' | 'constant'; burstiness?: number };
  slo: CapacitySlo;
  lowest: number;
  highest: number;
  /** Relative width of the final bracket (default 0.01). */
  tolerance?: number;
  /** Requests per replay (default 2,000) and replays per load, pooled (default 3 seeds). */
  requests?: number;
  seeds?: number;
}

export interface LoadJudgement {
  load: number;
  met: boolean;
  /** Each target's pooled percentile, ms, in the SLO's order. */
  valuesMs: number[];
  goodShare: number;
  /** Median TTFT of the last judged fifth over the second fifth: a queue that keeps growing. */
  ttftGrowth: number;
}

export interface CapacityAnswer {
  /** The highest load meeting the SLO; null when the lowest fails. */
  capacity: number | null;
  bracket: { passed: number | null; failed: number | null };
  /** The judgement of the capacity's load (its figures), null when the lowest fails. */
  atCapacity: LoadJudgement | null;
  evaluations: LoadJudgement[];
}

/** A queue that grows: TTFT up this much from the second fifth to the last (and by 20 ms). */
const GROWTH = 2;

/**
 * The simulator's own capacity at an SLO: replays each load in model time (replayLoad: the live
 * scheduler and step times) over several seeds, judges the pooled requests as a sweep point is judged
 * (each target's percentile, numpy's linear method; goodput with each metric's loosest limit per
 * request, ITL on every gap), and bisects in log load. For a rate, the first and last tenth of the
 * requests are left out (an empty server fills; the last arrivals drain), and a load whose TTFT keeps
 * climbing through the run fails whatever its percentiles say: it is beyond the service rate.
 */
export function groundTruthCapacity(question: CapacityQuestion): CapacityAnswer {
  const tolerance = question.tolerance ?? 0.01;
  const evaluations: LoadJudgement[] = [];
  let atCapacity: LoadJudgement | null = null;
  const judge = (load: number): boolean => {
    const judgement = judgeLoad(question, load);
    evaluations.push(judgement);
    if (judgement.met) atCapacity = judgement;
    return judgement.met;
  };
  if (!judge(question.lowest)) {
    return { capacity: null, bracket: { passed: null, failed: question.lowest }, atCapacity, evaluations };
  }
  if (judge(question.highest)) {
    return {
      capacity: question.highest,
      bracket: { passed: question.highest, failed: null },
      atCapacity,
      evaluations,
    };
  }
  let passed = question.lowest;
  let failed = question.highest;
  while (failed / passed - 1 > tolerance) {
    const mid = Math.sqrt(passed * failed);
    if (judge(mid)) passed = mid;
    else failed = mid;
  }
  return { capacity: passed, bracket: { passed, failed }, atCapacity, evaluations };
}

/** The capacity of the simulator that `startSimulator(options)` starts: its deployment and engine settings. */
export function simulatorCapacity(
  options: SimulatorOptions,
  question: Omit<CapacityQuestion, 'deployment' | 'scheduler' | 'jitter'>,
): CapacityAnswer {
  const deployment = resolveDeployment(options);
  const settings = resolveSettings(options, deployment);
  return groundTruthCapacity({
    ...question,
    deployment,
    jitter: settings.jitter,
    scheduler: schedulerOptionsOf(settings, options.chunkedPrefill ?? false),
  });
}

export function judgeLoad(question: CapacityQuestion, load: number): LoadJudgement {
  const seeds = question.seeds ?? 3;
  const requests = question.requests ?? 2_000;
  const judged: ReplayedRequest[] = [];
  let growth = 0;
  for (let seed = 1; seed <= seeds; seed++) {
    const replay = replayLoad({
      deployment: question.deployment,
      scheduler: question.scheduler,
      jitter: question.jitter,
      seed,
      workload: question.workload,
      requests,
      load:
        question.dimension === 'rate'
          ? { kind: 'open', ratePerS: load, ...(question.arrival ?? { arrival: 'poisson' }) }
          : { kind: 'closed', concurrency: Math.max(1, Math.round(load)) },
    });
    const window =
      question.dimension === 'rate'
        ? replay.requests.slice(Math.floor(requests * 0.1), Math.ceil(requests * 0.9))
        : replay.requests;
    judged.push(...window);
    growth = Math.max(growth, ttftGrowth(window));
  }
  const samples = samplesOf(judged);
  const limits = loosestLimits(question.slo);
  const valuesMs = question.slo.targets.map((t) => percentile(sorted(samples[t.metric]), t.percentile / 100));
  const good = judged.filter((r) => isGood(r, limits)).length / judged.length;
  const met =
    question.slo.targets.every((t, i) => valuesMs[i] <= t.limitMs) &&
    (question.slo.minGoodShare === undefined || good >= question.slo.minGoodShare) &&
    !(question.dimension === 'rate' && growth >= GROWTH);
  return { load, met, valuesMs, goodShare: good, ttftGrowth: growth };
}

function samplesOf(requests: readonly ReplayedRequest[]): Record<SloMetric, number[]> {
  const out: Record<SloMetric, number[]> = { ttft: [], tpot: [], itl: [], e2e: [] };
  for (const r of requests) {
    const times = r.tokenTimesS;
    const n = times.length;
    out.ttft.push((times[0] - r.arrivalS) * 1000);
    out.e2e.push((times[n - 1] - r.arrivalS) * 1000);
    if (n >= 2) out.tpot.push(((times[n - 1] - times[0]) / (n - 1)) * 1000);
    for (let k = 1; k < n; k++) out.itl.push((times[k] - times[k - 1]) * 1000);
  }
  return out;
}

function loosestLimits(slo: CapacitySlo): Partial<Record<SloMetric, number>> {
  const limits: Partial<Record<SloMetric, number>> = {};
  for (const t of slo.targets) limits[t.metric] = Math.max(limits[t.metric] ?? 0, t.limitMs);
  return limits;
}

function isGood(r: ReplayedRequest, limits: Partial<Record<SloMetric, number>>): boolean {
  const times = r.tokenTimesS;
  const n = times.length;
  const ms = (s: number) => s * 1000;
  if (limits.ttft !== undefined && ms(times[0] - r.arrivalS) > limits.ttft) return false;
  if (limits.e2e !== undefined && ms(times[n - 1] - r.arrivalS) > limits.e2e) return false;
  if (limits.tpot !== undefined && n >= 2 && ms((times[n - 1] - times[0]) / (n - 1)) > limits.tpot)
    return false;
  if (limits.itl !== undefined) {
    for (let k = 1; k < n; k++) if (ms(times[k] - times[k - 1]) > limits.itl) return false;
  }
  return true;
}

function ttftGrowth(requests: readonly ReplayedRequest[]): number {
  const fifth = Math.floor(requests.length / 5);
  if (fifth < 10) return 1;
  const median = (part: readonly ReplayedRequest[]) =>
    percentile(sorted(part.map((r) => (r.tokenTimesS[0] - r.arrivalS) * 1000)), 0.5);
  const second = median(requests.slice(fifth, 2 * fifth));
  const last = median(requests.slice(4 * fifth));
  return last - second >= 20 && second > 0 ? last / second : 1;
}

function sorted(values: number[]): Float64Array {
  return Float64Array.from(values).sort();
}
