import type { WorkloadMatch } from './workload';

type SideName = 'baseline' | 'candidate';

/** A comparison that returned before resampling. */
export const NOTHING_RESAMPLED = 'nothing was resampled';

/** Why each resampling unit is the right one, as a comparison says it. */
export const RESAMPLING_REASONS = {
  byRuns:
    'runs are the independent units (tokens and requests of one run share the server state, batch and ' +
    'neighbours), so whole runs are redrawn and the interval includes the run-to-run spread',
  byRequests:
    "the side's runs are redrawn with replacement, then each drawn run's requests (each with all its " +
    'tokens, which are not independent of each other): with few runs the interval keeps what it can of ' +
    'the run-to-run spread, which redrawing whole runs alone would estimate from too few resamples',
} as const;

/** The notes a reader must know to trust a comparison's verdict, one sentence each. */
export const NOTES = {
  saturated: (side: SideName, runs: number) =>
    `${side}: ${runs} client-saturated runs left out (includeSaturated to keep them)`,
  unmatched: (side: SideName, runs: number) => `${side}: ${runs} named runs are not measured runs of it`,
  noRuns: (side: SideName) => `${side}: no measured run matches`,
  shared: (runs: number) => `${runs} runs are on both sides: the sides are not independent`,
  workload: (workload: WorkloadMatch) =>
    `the workloads differ (${workload.differences.map((d) => d.field).join(', ')}): not like with like`,
  rawDropped: (side: SideName, requests: number) =>
    `${side}: ${requests} requests left out whose raw timings retention dropped`,
  thresholdConflict: (row: string, values: number[], applied: number) =>
    `the profiles set different thresholds for ${row} (${values.join(', ')}): the strictest, ${applied}, applies`,
};
