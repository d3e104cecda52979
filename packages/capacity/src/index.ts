export {
  costPerMillionOutputTokens,
  gpuCountOf,
  MAX_FAILED_SHARE,
  pointFigures,
  requestLimits,
  targetValueMs,
} from './point';
export type { CostBasis, PointInput, PointRequest, Saturation, SweepPoint, TargetResult } from './point';
export { pointRequestsOf } from './requests';
export { saturationOf } from './saturation';
export { bracketOf, marginOf, nextSweepStep, overSaturated } from './search';
export type { Bracket, SweepStep } from './search';
export { frontier, sweepOutcome } from './outcome';
export type { SweepOutcome } from './outcome';
