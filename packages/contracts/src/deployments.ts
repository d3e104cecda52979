/**
 * What a deployment verifies and how: the settings' defaults and bounds (the API validates against
 * them, the worker reads them from the row) and the shape of the stored verification.
 */
export const DEPLOYMENT_SETTINGS = {
  runsPerProfile: { default: 3, min: 1, max: 20 },
  firstRunDelayS: { default: 30, min: 0, max: 24 * 3600 },
  baselineRuns: { default: 5, min: 1, max: 100 },
  threshold: { default: 0.1, min: 0.001, max: 10 },
} as const;

export type DeploymentSettingName = keyof typeof DEPLOYMENT_SETTINGS;

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
  /** The bootstrap interval of `delta`. */
  interval: [number, number] | null;
  /** The change that matters, in the terms of `delta`. */
  threshold: number;
  verdict: MetricVerdictName;
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
  metrics: MetricVerification[];
}

export interface DeploymentVerification {
  verdict: DeploymentVerdictName;
  threshold: number;
  /** Confidence level of every interval. */
  confidence: number;
  profiles: ProfileVerification[];
}
