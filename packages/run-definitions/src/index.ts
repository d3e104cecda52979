export { percentile } from './percentile';
export { DEFAULT_TRANSPORT, TRANSPORTS, type Load, type Slo, type Transport, type Workload } from './profile';
export type {
  ConnectBackoffReport,
  ErrorClass,
  PercentileSummary,
  RequestMetrics,
  RunSummary,
  TokenCountSource,
} from './summary';
