/**
 * The profile snapshot fields that shape what the endpoint is asked to do. Schedule, timeouts, SLO,
 * seed and names do not change the load, so runs differing only there are still like with like.
 */
export const WORKLOAD_FIELDS = [
  'workload',
  'load',
  'requestCount',
  'durationS',
  'warmupRequests',
  'forceOutputLength',
] as const;

export interface WorkloadDifference {
  field: (typeof WORKLOAD_FIELDS)[number];
  baseline: unknown[];
  candidate: unknown[];
}

export interface WorkloadMatch {
  /** True when every run of both sides had the same workload. */
  same: boolean;
  /** Fields whose values differ between or within the sides, with the distinct values seen on each. */
  differences: WorkloadDifference[];
}

/** Compares the runs' profile snapshots on the WORKLOAD_FIELDS. */
export function matchWorkloads(baseline: readonly unknown[], candidate: readonly unknown[]): WorkloadMatch {
  const differences: WorkloadDifference[] = [];
  for (const field of WORKLOAD_FIELDS) {
    const a = distinct(baseline, field);
    const b = distinct(candidate, field);
    const keys = new Set([...a.keys(), ...b.keys()]);
    if (keys.size > 1) differences.push({ field, baseline: [...a.values()], candidate: [...b.values()] });
  }
  return { same: differences.length === 0, differences };
}

function distinct(snapshots: readonly unknown[], field: string): Map<string, unknown> {
  const values = new Map<string, unknown>();
  for (const snapshot of snapshots) {
    const value =
      snapshot && typeof snapshot === 'object'
        ? ((snapshot as Record<string, unknown>)[field] ?? null)
        : null;
    values.set(canonicalJson(value), value);
  }
  return values;
}

/** JSON with object keys sorted, so {a, b} and {b, a} are one workload. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}
