export { bootstrapDelta, bootstrapDeltas, type BootstrapDeltaResult } from './deltas';
export { bootstrapRatioDelta, type RateTotals } from './ratio';
export type { PooledSample, PooledStatistic, Pooling } from './samples';
