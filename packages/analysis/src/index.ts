export { AnalysisInputError } from './errors';
export {
  selectRuns,
  checkSelection,
  SERVING_CONFIG_FIELDS,
  SERVING_CONFIG_FIELD_NAMES,
  RUN_TRIGGERS,
  MAX_SELECTED_RUNS,
} from './selection';
export type {
  RunSelection,
  SelectedRun,
  SelectedRuns,
  ServingConfigField,
  ConfigValue,
  RunTriggerName,
} from './selection';
export {
  trend,
  checkMetric,
  histogramStatistic,
  TREND_BUCKETS,
  TREND_GROUP_FIELDS,
  MAX_TREND_POINTS,
  MAX_ROLLUP_ROWS,
} from './trend';
export type {
  Trend,
  TrendOptions,
  TrendQuery,
  TrendPoint,
  TrendSeries,
  TrendBucket,
  TrendGroupField,
} from './trend';
export { trendDeployments, MAX_TREND_DEPLOYMENTS, type TrendDeployment } from './trend-deployments';
export { verdictOf, overallVerdictOf } from './comparisons/verdict';
export type { Verdict, VerdictInput } from './comparisons/verdict';
export { matchWorkloads, WORKLOAD_FIELDS } from './comparisons/workload';
export type { WorkloadMatch, WorkloadDifference } from './comparisons/workload';
export {
  compare,
  DEFAULT_COMPARISON_METRICS,
  DEFAULT_COMPARISON_STATISTICS,
  MAX_COMPARISON_RUNS,
  MAX_SIDE_RUN_IDS,
  MAX_RAW_REQUESTS,
  MAX_ITERATIONS as MAX_COMPARISON_ITERATIONS,
  AUTO_RUNS_MIN,
  MIN_RUNS,
  RESAMPLE_CHOICES,
} from './comparisons/compare';
export type {
  Comparison,
  ComparisonQuery,
  ComparisonSide,
  ComparisonSideSummary,
  MetricComparison,
  ResampleChoice,
  ResampleUnit,
} from './comparisons/compare';
export {
  checkThresholds,
  DEFAULT_THRESHOLD,
  DEFAULT_FRACTION_THRESHOLD,
  MAX_THRESHOLD,
} from './comparisons/thresholds';
export type { ComparisonThreshold, Thresholds } from './comparisons/thresholds';
export type { SideRoofline } from './comparisons/roofline';
export { cdfPoints, CDF_QUANTILES } from './comparisons/distribution';
export type { CdfPoint, ComparisonDistributions, SideDistribution } from './comparisons/distribution';
export {
  verifyDeployment,
  overallOf,
  DEPLOYMENT_STATISTICS,
  JUDGED_ROWS,
  VERIFICATION_CONFIDENCE,
  EQUIVALENCE_CONFIDENCE,
} from './deployments/verify';
export type { DeploymentToVerify, VerificationProgress, VerifyOptions } from './deployments/verify';
export {
  recomputeChangePoints,
  listChangePoints,
  CHANGE_POINT_MODES,
  CHANGE_POINT_KINDS,
  CHANGE_POINT_SERIES,
  MAX_SERIES_RUNS,
  MIN_SERIES_RUNS,
  MAX_CHANGE_POINTS_LIMIT,
} from './change-points';
export type {
  ChangePoint,
  ChangePointKind,
  ChangePointList,
  ChangePointMode,
  ChangePointOptions,
  ChangePointQuery,
  Recomputation,
  SeriesKey,
} from './change-points';
