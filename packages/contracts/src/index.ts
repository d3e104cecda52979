export {
  METRICS,
  METRIC_NAMES,
  HISTOGRAM_METRICS,
  RATE_METRICS,
  DIAGNOSTIC_METRICS,
  JUDGED_METRIC_NAMES,
  HEADLINES,
  isMetricName,
  summaryValue,
  headlineFigures,
} from './metrics';
export type {
  MetricName,
  MetricDefinition,
  DiagnosticMetric,
  HistogramMetric,
  Weighting,
  Direction,
  Headline,
  HeadlineField,
  HeadlineFigures,
} from './metrics';
export {
  STATISTICS,
  STATISTIC_QUANTILES,
  isStatistic,
  statisticOf,
  statisticScale,
  statisticUnit,
} from './statistics';
export type { QuantileSource, Statistic, StatisticDefinition } from './statistics';
export {
  InvalidSnapshotError,
  parseProfileSnapshot,
  PROFILE_FIELDS_NOT_SNAPSHOTTED,
  PROFILE_SNAPSHOT_FIELDS,
  snapshotOf,
} from './profile-snapshot';
export type { ProfileSnapshot } from './profile-snapshot';
export {
  FINAL_RUN_STATUSES,
  isFinalRunStatus,
  MEASURED_RUN_STATUSES,
  RUN_ERROR_CLASSES,
  RUN_STATUSES,
  SKIPPED_RUN_ERROR_PREFIX,
  UNFINISHED_RUN_STATUSES,
} from './run-status';
export type { RunErrorClass, RunStatusName, UnfinishedRunStatus } from './run-status';
export { SWEEP_STATUSES, UNFINISHED_SWEEP_STATUSES } from './sweep-status';
export type { FinalSweepStatus, SweepStatusName } from './sweep-status';
export { JOB_NAMES, QUEUE_NAMES, QUEUE_OF_JOB, WORKER_ROLES } from './jobs';
export type {
  JobName,
  JobOf,
  QueueName,
  RunJobData,
  VerifyDeploymentJobData,
  ChangePointsJobData,
  AdvanceSweepJobData,
  WebhookJobData,
  WorkerRole,
} from './jobs';
export {
  isWebhookEventType,
  WEBHOOK_BODY_VERSION,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_PAYLOAD_FORMATS,
} from './webhook-events';
export type { WebhookBody, WebhookEventType, WebhookPayloadFormat } from './webhook-events';
export { DEFAULT_INCLUDE_SATURATED, DEPLOYMENT_SETTINGS, DEPLOYMENT_VERDICTS } from './deployments';
export type {
  DeploymentVerdictName,
  DeploymentVerification,
  MetricVerification,
  MetricVerdictName,
  ProfileVerification,
  VerificationMethod,
} from './deployments';
export {
  formatBeforeAfter,
  formatChange,
  formatFigure,
  formatInterval,
  rowName,
  VERDICT_EMOJI,
  verdictClass,
} from './verification-rows';
export type { VerdictClass, VerificationRowFigures } from './verification-rows';
export { capacitySloSchema, maxSweepPoints, SLO_PRESETS, SWEEP_LIMITS, sweepSpecSchema } from './sweeps';
export {
  SLO_METRICS,
  SLO_PERCENTILES,
  SWEEP_DIMENSIONS,
  SWEEP_STOP_REASONS,
  type SloMetric,
  type SloPercentile,
  type SloTarget,
  type CapacitySlo,
  type SweepDimension,
  type SweepSpec,
  type SweepStopReason,
} from '@teapot/run-definitions';
export {
  isSweepMetricName,
  SERIES_METRIC_NAMES,
  SWEEP_METRIC_NAMES,
  SWEEP_METRICS,
  SWEEP_STATISTICS,
  sweepMetricUnit,
} from './sweep-metrics';
export type { SweepMetricName } from './sweep-metrics';
export { LATENCY_BUCKETS_S, REQUEST_LATENCY_BUCKETS_S, TOKEN_LATENCY_BUCKETS_S } from './latency-buckets';
export type { ClientDiagnostics, ServerDiagnostics } from './diagnostics';
export { diagnosticValue, type DiagnosticSource } from './diagnostic-metrics';
export {
  DIAGNOSTIC_ALPHA,
  diagnosticChangeText,
  explanationLine,
  type DiagnosticChange,
} from './diagnostic-changes';
