import type { PercentileSummary, RunSummary, Slo } from '@teapot/measure';
import { UsageError, positiveNumber } from '@teapot/command-line';

export const LATENCY_METRICS = {
  ttft: 'ttftMs',
  tpot: 'tpotMs',
  itl: 'itlMs',
  e2e: 'e2eMs',
} as const satisfies Record<string, keyof Slo & keyof RunSummary>;
type LatencyMetric = keyof typeof LATENCY_METRICS;

export const LATENCY_STATS = ['p50', 'p90', 'p95', 'p99', 'p999', 'mean', 'max'] as const;
type LatencyStat = (typeof LATENCY_STATS)[number];

/** Run-level rates that an SLO sets a floor on. */
export const THROUGHPUT_METRICS = {
  output_tokens_per_s: 'outputTokensPerS',
  requests_per_s: 'requestsPerS',
} as const satisfies Record<string, keyof RunSummary>;
type ThroughputMetric = keyof typeof THROUGHPUT_METRICS;

/** One `--slo name=value` gate on the run: a latency ceiling or a throughput floor. */
export type SloGate =
  | { kind: 'latency'; name: string; metric: LatencyMetric; stat: LatencyStat; maxMs: number }
  | { kind: 'throughput'; name: string; metric: ThroughputMetric; min: number };

export interface SloVerdict {
  gate: SloGate;
  /** The run's figure; null when the run has no sample for it (e.g. every request failed). */
  actual: number | null;
  pass: boolean;
}

const SLO_HELP = `expected METRIC_STAT_ms=N (METRIC ttft|tpot|itl|e2e, STAT ${LATENCY_STATS.join('|')}) or ${Object.keys(THROUGHPUT_METRICS).join('|')}=N`;

export function parseSlo(spec: string): SloGate {
  const match = /^([a-z0-9_]+)=(.*)$/.exec(spec.trim());
  if (!match) throw new UsageError(`--slo: ${SLO_HELP}, got "${spec}"`);
  const [, name, rawValue] = match;
  const value = positiveNumber(`--slo ${name}`, rawValue);

  if (name in THROUGHPUT_METRICS)
    return { kind: 'throughput', name, metric: name as ThroughputMetric, min: value };
  const latency = /^(ttft|tpot|itl|e2e)_([a-z0-9]+)_ms$/.exec(name);
  if (!latency || !(LATENCY_STATS as readonly string[]).includes(latency[2]))
    throw new UsageError(`--slo: unknown objective "${name}"; ${SLO_HELP}`);
  return {
    kind: 'latency',
    name,
    metric: latency[1] as LatencyMetric,
    stat: latency[2] as LatencyStat,
    maxMs: value,
  };
}

/** Latency gates pass at or under their ceiling, throughput gates at or over their floor. */
export function evaluateSlos(gates: SloGate[], summary: RunSummary): SloVerdict[] {
  return gates.map((gate) => {
    if (gate.kind === 'throughput') {
      const actual = summary.requests.succeeded > 0 ? summary[THROUGHPUT_METRICS[gate.metric]] : null;
      return { gate, actual, pass: actual !== null && actual >= gate.min };
    }
    const distribution: PercentileSummary | null = summary[LATENCY_METRICS[gate.metric]];
    const actual = distribution && distribution.count > 0 ? distribution[gate.stat] : null;
    return { gate, actual, pass: actual !== null && actual <= gate.maxMs };
  });
}

/**
 * The per-request objectives that goodput counts against: a request is good when each of its
 * latencies is within the gate on that metric (the loosest one when several percentiles are set).
 */
export function requestSlo(gates: SloGate[]): Slo | undefined {
  const slo: Slo = {};
  for (const gate of gates) {
    if (gate.kind !== 'latency') continue;
    const key = LATENCY_METRICS[gate.metric];
    slo[key] = Math.max(slo[key] ?? 0, gate.maxMs);
  }
  return Object.keys(slo).length > 0 ? slo : undefined;
}
