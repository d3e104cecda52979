export { AnalysisInputError } from './errors';
export {
  CHANGE_POINT_KINDS,
  CHANGE_POINT_MODES,
  RUN_TRIGGERS,
  SERVING_CONFIG_FIELDS,
  SERVING_CONFIG_FIELD_NAMES,
} from '@teapot/db';
export type {
  ChangePoint,
  ChangePointKind,
  ChangePointMode,
  ConfigValue,
  RunTriggerName,
  ServingConfigField,
} from '@teapot/db';
export { trend, TREND_BUCKETS, TREND_GROUP_FIELDS } from './trend';
export type { Trend, TrendBucket, TrendGroupField } from './trend';
export { trendDeployments, type TrendDeployment } from './trend-deployments';
export { sweepTrend } from './sweep-trend';
export { compareSweeps, compareSweepValues } from './sweep-comparison';
export { sweepRowVerification } from './deployments/verify-sweeps';
export type {
  SweepComparison,
  SweepComparisonQuery,
  SweepMetricComparison,
  SweepSide,
} from './sweep-comparison';
export { compareRuns } from './comparisons/load-comparison';
export type { Comparison } from './comparisons/compare';
export { COMPARISON_LIMITS, RESAMPLE_CHOICES } from './comparisons/comparison-query';
export type { ComparisonSide, ResampleChoice } from './comparisons/comparison-query';
export { checkThresholds, MAX_THRESHOLD } from './comparisons/thresholds';
export { verifyDeployment } from './deployments/verify';
export { recomputeChangePoints, listChangePoints, MAX_CHANGE_POINTS_LIMIT } from './change-points';
export type { ChangePointList, ChangePointNews, Recomputation } from './change-points';
export { attributionSummary, withAttribution } from './change-point-attribution';
export type { SummarisedAttribution } from './change-point-attribution';
