export {
  otavaChangePoints,
  otavaTTest,
  relativeMagnitude,
  OTAVA_DEFAULTS,
  type OtavaOptions,
  type OtavaChangePoint,
  type SplitStats,
} from './otava';
export {
  robustChangePoints,
  noiseLevel,
  ROBUST_DEFAULTS,
  type RobustOptions,
  type RobustFinding,
  type RobustResult,
} from './robust';
export {
  labelledSeries,
  scoreDetections,
  SERIES_KINDS,
  type Detection,
  type DetectionScore,
  type LabelledSeries,
  type SeriesKind,
  type SeriesShape,
} from './synthetic';
export { familySeries, SERIES_FAMILIES, type SeriesFamily } from './families';
export { stepStillHolds } from './holds';
