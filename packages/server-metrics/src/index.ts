export { COUNTERS, GAUGES, HISTOGRAMS, pointOf, type HistogramPoint, type ScrapePoint } from './catalogue';
export {
  counterIncrease,
  deriveServerDiagnostics,
  histogramIncrease,
  histogramQuantile,
  increaseSoFar,
  measuredWindowOf,
  seriesOf,
  type GaugeWindow,
  type HistogramIncrease,
  type MeasuredRun,
  type ServerSeries,
  type TimedPoint,
} from './derive';
export { ExpositionError, parseExposition, type Sample } from './exposition';
export {
  DEFAULT_SCRAPE_INTERVAL_MS,
  ServerMetricsSampler,
  type SamplerOptions,
  type SamplerResult,
} from './sampler';
export {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_SCRAPE_TIMEOUT_MS,
  scrapeDispatcher,
  scrapeMetrics,
  type ScrapeOptions,
  type ScrapeResult,
} from './scrape';
