import type { ServerDiagnostics } from '@teapot/contracts';
import type { CounterName, GaugeName, HistogramName, HistogramPoint, ScrapePoint } from './catalogue';

/** A parsed scrape at its time on the run's monotonic clock (ms from the run's anchor). */
export interface TimedPoint {
  offsetMs: number;
  point: ScrapePoint;
}

/** The window the gauges are averaged over (the run's measured window, ms from its anchor). */
export interface GaugeWindow {
  startMs: number;
  endMs: number;
}

/** What measuredWindowOf reads of a run's result (@teapot/measure's RunResult has it). */
export interface MeasuredRun {
  durationUs: number;
  requests: ReadonlyArray<{ warmup: boolean; startUs: number }>;
}

/**
 * The run's measured window on its clock (ms from its anchor): from the first measured request's start,
 * its duration long. Gauges are averaged over the scrapes inside it; undefined when nothing was measured.
 */
export function measuredWindowOf(run: MeasuredRun): GaugeWindow | undefined {
  let firstUs = Infinity;
  for (const request of run.requests) if (!request.warmup) firstUs = Math.min(firstUs, request.startUs);
  if (firstUs === Infinity) return undefined;
  return { startMs: firstUs / 1000, endMs: (firstUs + run.durationUs) / 1000 };
}

/** A histogram's increase over the run, by bucket (cumulative, bounds ascending, +Inf last). */
export interface HistogramIncrease {
  le: number[];
  counts: number[];
  sum: number;
  count: number;
}

/**
 * Counter increase as Prometheus' `increase()` counts it: consecutive samples add their difference,
 * and a drop is a reset (the server restarted), after which the counter counted from 0, so the new
 * value is the increase. Without `increase()`'s extrapolation to the edges of a range: the scrapes
 * bracket the run. Undefined with fewer than two samples (no increase can be known).
 */
export function counterIncrease(values: readonly number[]): number | undefined {
  if (values.length < 2) return undefined;
  return increaseSoFar(values)[values.length - 1]!;
}

/**
 * The counter's increase from its first value to each one, resets counted as counterIncrease counts
 * them (what a chart of "preemptions so far" draws); null where the scrape lacked the counter.
 */
export function increaseSoFar(values: ReadonlyArray<number | null>): Array<number | null> {
  let total = 0;
  let previous: number | null = null;
  return values.map((value) => {
    if (value === null) return null;
    if (previous !== null) total += value >= previous ? value - previous : value;
    previous = value;
    return total;
  });
}

/**
 * `histogram_quantile(q, ...)` as Prometheus computes it on classic buckets: the rank q x total is
 * found in the cumulative counts (made monotonic first), and the value interpolated linearly inside
 * its bucket, from the bucket below's bound (0 below the first bucket) to its own. A rank in the +Inf
 * bucket gives the highest finite bound. Undefined for an empty histogram or one without finite buckets.
 */
export function histogramQuantile(q: number, histogram: HistogramIncrease): number | undefined {
  const { le } = histogram;
  if (le.length < 2 || le[le.length - 1] !== Infinity) return undefined;
  const counts: number[] = [];
  for (const count of histogram.counts) counts.push(Math.max(count, counts[counts.length - 1] ?? 0));
  const total = counts[counts.length - 1];
  if (!(total > 0)) return undefined;
  const rank = q * total;
  let index = 0;
  while (index < counts.length - 1 && counts[index] < rank) index++;
  if (index === le.length - 1) return le[le.length - 2];
  if (index === 0 && le[0] <= 0) return le[0];
  const lower = index === 0 ? 0 : le[index - 1];
  const below = index === 0 ? 0 : counts[index - 1];
  const inBucket = counts[index] - below;
  if (inBucket === 0) return le[index];
  return lower + (le[index] - lower) * ((rank - below) / inBucket);
}

/**
 * A histogram's increase over the run, bucket by bucket with resets handled as counterIncrease does.
 * Scrapes whose bucket layout differs from the first one that has the histogram are left out (a
 * server restarted with other buckets cannot be subtracted bucket by bucket).
 */
export function histogramIncrease(points: readonly HistogramPoint[]): HistogramIncrease | undefined {
  if (points.length < 2) return undefined;
  const layout = points[0].le;
  const same = points.filter(
    (point) => point.le.length === layout.length && point.le.every((bound, index) => bound === layout[index]),
  );
  if (same.length < 2) return undefined;
  return {
    le: [...layout],
    counts: layout.map((_, bucket) => counterIncrease(same.map((point) => point.counts[bucket]))!),
    sum: counterIncrease(same.map((point) => point.sum))!,
    count: counterIncrease(same.map((point) => point.count))!,
  };
}

/** What the run page and the derivation keep of a run's scrapes (stored in run_server_samples). */
export interface ServerSeries {
  /** Each successful scrape's time, ms from the run's anchor (the first one may be negative: just before the run). */
  offsetsMs: number[];
  /** Gauge and counter values at each scrape; null where the scrape did not have the series. */
  gauges: Partial<Record<GaugeName, Array<number | null>>>;
  counters: Partial<Record<CounterName, Array<number | null>>>;
  /** Histograms as their increase over the run (their per-scrape buckets are not kept). */
  histograms: Partial<Record<HistogramName, HistogramIncrease>>;
}

/** The successful scrapes as stored series, in time order. */
export function seriesOf(points: readonly TimedPoint[]): ServerSeries {
  const ordered = [...points].sort((a, b) => a.offsetMs - b.offsetMs);
  const series: ServerSeries = {
    offsetsMs: ordered.map((p) => p.offsetMs),
    gauges: {},
    counters: {},
    histograms: {},
  };
  const column = <K extends string>(read: (point: ScrapePoint) => Partial<Record<K, number>>, name: K) =>
    ordered.map(({ point }) => read(point)[name] ?? null);
  for (const name of namesIn(ordered, (point) => point.gauges))
    series.gauges[name] = column((p) => p.gauges, name);
  for (const name of namesIn(ordered, (point) => point.counters))
    series.counters[name] = column((p) => p.counters, name);
  for (const name of namesIn(ordered, (point) => point.histograms)) {
    const present = ordered.flatMap(({ point }) => (point.histograms[name] ? [point.histograms[name]] : []));
    const increase = histogramIncrease(present);
    if (increase) series.histograms[name] = increase;
  }
  return series;
}

function namesIn<K extends string>(
  points: readonly TimedPoint[],
  read: (point: ScrapePoint) => Partial<Record<K, unknown>>,
): K[] {
  const names = new Set<K>();
  for (const { point } of points) for (const name of Object.keys(read(point)) as K[]) names.add(name);
  return [...names];
}

export interface DeriveInput {
  series: ServerSeries;
  scrapes: number;
  failedScrapes: number;
  /** What went wrong with the failed scrapes, most frequent first (at most a few kept). */
  errors: readonly string[];
  /** Gauges are averaged over the scrapes inside it; all scrapes when absent. */
  window?: GaugeWindow;
}

/**
 * The run's ServerDiagnostics from its stored series. A figure whose series the server did not
 * export, or that had too few scrapes to say, is absent; a ratio over a zero denominator is absent.
 */
export function deriveServerDiagnostics(input: DeriveInput): ServerDiagnostics {
  const { series, scrapes, failedScrapes, errors, window } = input;
  const diagnostics: ServerDiagnostics = { scrapes, failedScrapes };
  const error = errorText(scrapes, failedScrapes, errors);
  if (error) diagnostics.error = error;

  const inWindow = series.offsetsMs.map(
    (offset) => !window || (offset >= window.startMs && offset <= window.endMs),
  );
  const gauge = (name: GaugeName) => {
    const values = (series.gauges[name] ?? []).filter(
      (value, index): value is number => value !== null && inWindow[index],
    );
    if (values.length === 0) return undefined;
    return { mean: values.reduce((a, b) => a + b, 0) / values.length, max: Math.max(...values) };
  };
  const counter = (name: CounterName) =>
    counterIncrease((series.counters[name] ?? []).filter((value): value is number => value !== null));

  const running = gauge('running');
  const waiting = gauge('waiting');
  const kv = gauge('kvCacheUsage');
  Object.assign(
    diagnostics,
    running && { runningMean: running.mean, runningMax: running.max },
    waiting && { waitingMean: waiting.mean, waitingMax: waiting.max },
    kv && { kvCacheUsageMean: kv.mean, kvCacheUsageMax: kv.max },
  );
  const preemptions = counter('preemptions');
  if (preemptions !== undefined) diagnostics.preemptions = preemptions;
  const hitRate = ratio(counter('prefixCacheHits'), counter('prefixCacheQueries'));
  if (hitRate !== undefined) diagnostics.prefixCacheHitRate = hitRate;
  const accepted = counter('specDecodeAcceptedTokens');
  const acceptance = ratio(accepted, counter('specDecodeDraftTokens'));
  if (acceptance !== undefined) diagnostics.specDecodeAcceptanceRate = acceptance;
  const perDraft = ratio(accepted, counter('specDecodeDrafts'));
  if (perDraft !== undefined) diagnostics.specDecodeMeanAcceptedLength = 1 + perDraft;

  Object.assign(diagnostics, latencyFigures(series.histograms.ttft, 'serverTtft'));
  Object.assign(diagnostics, latencyFigures(series.histograms.itl, 'serverItl'));
  return diagnostics;
}

function latencyFigures(
  histogram: HistogramIncrease | undefined,
  prefix: 'serverTtft' | 'serverItl',
): Partial<ServerDiagnostics> {
  if (!histogram || !(histogram.count > 0)) return {};
  const figures: Record<string, number> = { [`${prefix}MeanMs`]: (histogram.sum / histogram.count) * 1000 };
  const p50 = histogramQuantile(0.5, histogram);
  const p99 = histogramQuantile(0.99, histogram);
  if (p50 !== undefined) figures[`${prefix}P50Ms`] = p50 * 1000;
  if (p99 !== undefined) figures[`${prefix}P99Ms`] = p99 * 1000;
  return figures;
}

function ratio(numerator: number | undefined, denominator: number | undefined): number | undefined {
  if (numerator === undefined || denominator === undefined || !(denominator > 0)) return undefined;
  return numerator / denominator;
}

function errorText(scrapes: number, failed: number, errors: readonly string[]): string | undefined {
  const what = errors.length ? errors.join('; ') : 'no scrape was made';
  if (scrapes === 0) return `metrics unavailable: ${what}`;
  if (failed > 0) return `${failed} of ${scrapes + failed} scrapes failed: ${what}`;
  return undefined;
}
