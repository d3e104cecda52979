import { isMetricName, METRICS, type MetricName, type Statistic } from '@teapot/contracts';
import type { StoredThresholds } from '@teapot/db';
import { AnalysisInputError } from '../errors';

/** Relative, except error_rate (absolute: one percentage point). */
export const DEFAULT_THRESHOLD = 0.05;
export const DEFAULT_FRACTION_THRESHOLD = 0.01;
/** The largest threshold accepted: a change of 1,000% (or 10 for a fraction, which never moves that far). */
export const MAX_THRESHOLD = 10;
/** Keys one thresholds object may hold: every metric and statistic of the catalogue fits. */
const MAX_THRESHOLD_KEYS = 100;

/**
 * Thresholds by metric (`itl`) or metric and statistic (`itl.p99`, which wins): relative
 * (0.05 = 5%), absolute for fractions (error_rate: 0.01 = one percentage point).
 */
export type Thresholds = Record<string, number>;

export interface ComparisonThreshold {
  value: number;
  /** relative: of (candidate - baseline) / baseline; absolute: of candidate - baseline. */
  kind: 'relative' | 'absolute';
  /** Who set it: the comparison request, the profile of the compared runs, or teapot's default. */
  source: 'request' | 'profile' | 'default';
  /** With source profile: the profile whose threshold applies. */
  profileId?: string;
}

/** One profile's comparison thresholds (profiles.comparison_thresholds). */
export interface ProfileThresholds {
  profileId: string;
  thresholds: Thresholds;
}

/**
 * Checks a thresholds object against the metric catalogue: each key a metric with a comparison, or
 * metric.statistic with a statistic it offers; each value a number from 0 to MAX_THRESHOLD. Throws an
 * AnalysisInputError naming `${parameter}.${key}` (or `parameter` for the object itself).
 */
export function checkThresholds(value: unknown, parameter: string): Thresholds {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new AnalysisInputError(parameter, 'must be an object of metric (or metric.statistic) to number');
  const keys = Object.keys(value);
  if (keys.length > MAX_THRESHOLD_KEYS)
    throw new AnalysisInputError(parameter, `may hold at most ${MAX_THRESHOLD_KEYS} thresholds`);
  for (const key of keys) {
    const problem = keyProblem(key);
    if (problem) throw new AnalysisInputError(`${parameter}.${key}`, problem);
    if (!isThresholdValue((value as Record<string, unknown>)[key]))
      throw new AnalysisInputError(
        `${parameter}.${key}`,
        `must be a number from 0 to ${MAX_THRESHOLD} (0.05 = 5%; error_rate: 0.01 = one percentage point)`,
      );
  }
  return value as Thresholds;
}

function isThresholdValue(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= MAX_THRESHOLD;
}

function keyProblem(key: string): string | null {
  const dot = key.indexOf('.');
  // "itl.p99.9" is metric itl, statistic p99.9: split at the first dot only.
  const metric = dot < 0 ? key : key.slice(0, dot);
  if (!isMetricName(metric)) return `names no metric: one of ${Object.keys(METRICS).join(', ')}`;
  const definition = METRICS[metric];
  if (definition.kind === 'diagnostic')
    return `names ${metric}, a diagnostic: diagnostics explain, they set no verdict`;
  if (definition.kind === 'distribution' && !definition.histogram)
    return `names ${metric}, which keeps no histogram over runs, so it has no comparison`;
  if (dot < 0) return null;
  const statistic = key.slice(dot + 1);
  const offered: readonly string[] = definition.kind === 'rate' ? ['mean'] : definition.statistics;
  return offered.includes(statistic) ? null : `names no statistic of ${metric}: one of ${offered.join(', ')}`;
}

/** The value a thresholds object sets for a row: metric.statistic, else metric; undefined when neither. */
function valueFor(thresholds: Thresholds, metric: MetricName, statistic: Statistic): number | undefined {
  for (const key of [`${metric}.${statistic}`, metric]) {
    if (Object.prototype.hasOwnProperty.call(thresholds, key)) return thresholds[key];
  }
  return undefined;
}

/**
 * The threshold a row is judged against: the request's, else the compared runs' profiles' (the
 * strictest when they differ, which `conflict` then lists), else the default.
 */
export function thresholdOf(
  metric: MetricName,
  statistic: Statistic,
  request: Thresholds,
  profiles: readonly ProfileThresholds[],
): { threshold: ComparisonThreshold; conflict?: number[] } {
  const kind = METRICS[metric].unit === 'fraction' ? 'absolute' : 'relative';
  const asked = valueFor(request, metric, statistic);
  if (asked !== undefined) return { threshold: { value: asked, kind, source: 'request' } };
  let strictest: ComparisonThreshold | undefined;
  const values = new Set<number>();
  for (const { profileId, thresholds } of profiles) {
    const value = valueFor(thresholds, metric, statistic);
    if (value === undefined) continue;
    values.add(value);
    if (!strictest || value < strictest.value) strictest = { value, kind, source: 'profile', profileId };
  }
  if (strictest)
    return values.size > 1
      ? { threshold: strictest, conflict: [...values].sort((a, b) => a - b) }
      : { threshold: strictest };
  return {
    threshold: {
      value: kind === 'absolute' ? DEFAULT_FRACTION_THRESHOLD : DEFAULT_THRESHOLD,
      kind,
      source: 'default',
    },
  };
}

/**
 * The comparison thresholds of these profiles, as stored. A key or value the catalogue no longer
 * accepts (a metric renamed since the profile was saved) is left out rather than failing the comparison.
 */
export function usableThresholds(stored: readonly StoredThresholds[]): ProfileThresholds[] {
  return stored.map(({ profileId, thresholds: given }) => {
    const thresholds: Thresholds = {};
    for (const [key, value] of Object.entries(given)) {
      if (keyProblem(key) === null && isThresholdValue(value)) thresholds[key] = value;
    }
    return { profileId, thresholds };
  });
}
