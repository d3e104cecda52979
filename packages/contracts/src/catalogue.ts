// The metric and statistics catalogues without the rest of contracts (zod, schemas): what the dashboard bundles.
export { DIAGNOSTIC_METRICS, METRICS, type DiagnosticMetric, type MetricName } from './metrics';
export { isStatistic, statisticOf, type Statistic } from './statistics';
export { SWEEP_METRICS, SWEEP_STATISTICS, type SweepMetricName } from './sweep-metrics';
