/**
 * What a deployment verifies and how: the settings' defaults and bounds (the API validates against
 * them, the worker reads them from the row) and the shape of the stored verification.
 */

import type { DiagnosticChange } from './diagnostic-changes';

export const DEPLOYMENT_SETTINGS = {
  runsPerProfile: { default: 3, min: 1, max: 20 },
  firstRunDelayS: { default: 30, min: 0, max: 24 * 3600 },
  baselineRuns: { default: 5, min: 1, max: 100 },
  threshold: { default: 0.1, min: 0.001, max: 10 },
} as const;

export type DeploymentSettingName = keyof typeof DEPLOYMENT_SETTINGS;

/**
 * Whether the verification counts client-saturated runs (default false: such a run may have measured
 * the client's own lag, not the endpoint). On a measuring machine known to be shared, true keeps the
 * verification possible; the stored result then notes how many runs were saturated.
 */
export const DEFAULT_INCLUDE_SATURATED = false;

export const DEPLOYMENT_VERDICTS = [
  'verified',
  'regressed',
  'improved',
  'inconclusive',
  'no_baseline',
] as const;
export type DeploymentVerdictName = (typeof DEPLOYMENT_VERDICTS)[number];

/** The verdict of one metric: `unchanged` is what makes a deployment `verified`. */
export type MetricVerdictName = 'regressed' | 'improved' | 'unchanged' | 'inconclusive';

export interface MetricVerification {
  metric: string;
  statistic: string;
  unit: string;
  baseline: number | null;
  candidate: number | null;
  /** (candidate - baseline) / baseline, or candidate - baseline for fractions (see `relative`). */
  delta: number | null;
  relative: boolean;
  /** The bootstrap interval of `delta` at `confidence` (Bonferroni-corrected): it calls a change. */
  interval: [number, number] | null;
  /** The interval at `equivalenceConfidence`: inside +-threshold, it calls the row unchanged. */
  equivalenceInterval: [number, number] | null;
  /** The change that matters, in the terms of `delta`. */
  threshold: number;
  verdict: MetricVerdictName;
  /** Whether the row is one the verdict is judged on (DeploymentVerification.method.judgedRows). */
  judged: boolean;
  /** Why this row has no interval (too few runs or samples); it does not count in the verdict. */
  insufficient?: string;
}

export interface ProfileVerification {
  profileId: string;
  profileName: string | null;
  verdict: DeploymentVerdictName;
  /** Why the verdict is what it is when no metric decided it (no baseline, no successful run...). */
  reason: string | null;
  baselineRunIds: string[];
  candidateRunIds: string[];
  /** A sweep profile's: the capacity searches before the deployment and those it queued (runs are then empty). */
  baselineSweepIds?: string[];
  candidateSweepIds?: string[];
  /**
   * The judged rows (`metric.statistic`) that made the verdict: the regressed ones when regressed,
   * the improved ones when improved, the unchanged ones when verified, the inconclusive ones when inconclusive; empty when no row
   * decided it (see `reason`).
   */
  decidedBy: string[];
  metrics: MetricVerification[];
  /** The diagnostics that changed significantly between the sides' runs: why the rows moved (absent: none compared). */
  explanations?: DiagnosticChange[];
}

/** How a verification judged: which rows, at what family-wise error, with what minimum effect. */
export interface VerificationMethod {
  /** `metric.statistic` of every row the verdict is judged on; other rows are shown, not counted. */
  judgedRows: string[];
  /** Judged rows that can call a change but need not be shown unchanged for `verified` (a tail over few runs). */
  changeOnlyRows: string[];
  /**
   * At most this chance that sampling noise alone makes a profile regressed or improved (any judged
   * row called changed), or verified (every judged row called unchanged) when it moved.
   */
  familyAlpha: number;
  /** A change is called on intervals at 1 - familyAlpha / judgedRows.length (Bonferroni); no change on 1 - 2 familyAlpha intervals, each row (intersection-union). */
  correction: 'bonferroni';
  /** The smallest relative change (absolute for the error rate) that counts as a regression or improvement. */
  minimumEffect: number;
}

export interface DeploymentVerification {
  verdict: DeploymentVerdictName;
  threshold: number;
  /** Confidence level of every `interval` (Bonferroni-corrected, see method). */
  confidence: number;
  /** Confidence level of every `equivalenceInterval` (1 - 2 familyAlpha, see method). */
  equivalenceConfidence: number;
  method: VerificationMethod;
  profiles: ProfileVerification[];
}
