export { percentile } from './percentile';
export {
  DATASET_FORMATS,
  DEFAULT_TRANSPORT,
  TRACE_FORMATS,
  TRANSPORTS,
  type Conversation,
  type ConversationTurn,
  type DatasetFilters,
  type DatasetFormat,
  type DatasetSource,
  type Load,
  type ProfileWorkload,
  type SessionOptions,
  type Slo,
  type ThinkTime,
  type TraceFormat,
  type TraceRequest,
  type TraceSource,
  type Transport,
  type Workload,
} from './profile';
export { ERROR_CLASSES } from './summary';
export type {
  ConnectBackoffReport,
  ErrorClass,
  PercentileSummary,
  RequestMetrics,
  PromptTokenSource,
  RunSummary,
  SendLateness,
  TokenCountSource,
  TurnSummary,
  WorkloadReport,
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
