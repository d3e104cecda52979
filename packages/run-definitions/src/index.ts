export { percentile } from './percentile';
export { DEFAULT_TRANSPORT, TRANSPORTS, type Load, type Slo, type Transport, type Workload } from './profile';
export { ERROR_CLASSES } from './summary';
export type {
  ConnectBackoffReport,
  ErrorClass,
  PercentileSummary,
  RequestMetrics,
  PromptTokenSource,
  RunSummary,
  TokenCountSource,
} from './summary';
export {
  SLO_METRICS,
  SLO_PERCENTILES,
  SWEEP_DIMENSIONS,
  SWEEP_STOP_REASONS,
  type CapacitySlo,
  type SloMetric,
  type SloPercentile,
  type SloTarget,
  type SweepDimension,
  type SweepSpec,
  type SweepStopReason,
} from './capacity';
export type { ClientDiagnostics } from './diagnostics';
