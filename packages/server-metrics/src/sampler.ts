import type { ServerDiagnostics } from '@teapot/contracts';
import type { HostResolver } from '@teapot/webhooks';
import { pointOf } from './catalogue';
import {
  deriveServerDiagnostics,
  seriesOf,
  type GaugeWindow,
  type ServerSeries,
  type TimedPoint,
} from './derive';
import { scrapeDispatcher, scrapeMetrics, type ScrapeOptions } from './scrape';

export const DEFAULT_SCRAPE_INTERVAL_MS = 1_000;
/** Distinct failure reasons a run's diagnostics name, most frequent first. */
const KEPT_ERRORS = 3;

export interface SamplerOptions extends Omit<ScrapeOptions, 'dispatcher'> {
  url: string;
  /** Between the starts of consecutive scrapes (default 1 s); a scrape slower than this delays the next. */
  intervalMs?: number;
  /** The endpoint's model: samples labelled with another `model_name` are left out when some carry it. */
  model?: string;
  /** Resolves names at connect time (a test's stub for DNS); the URL policy judges what it returns. */
  resolve?: HostResolver;
  /** The monotonic clock, process.hrtime.bigint() unless a test pins it. */
  clockNs?: () => bigint;
}

export interface SamplerResult {
  series: ServerSeries;
  diagnostics: ServerDiagnostics;
}

/**
 * Scrapes a server's metrics while a run measures: once on start (before the run's first request),
 * every interval after, and once on stop (after its last), so that counters bracket the run. It runs
 * on the caller's event loop; the run measures on a thread of its own, so a scrape (its parse
 * included) never holds up a timestamp. Scrapes never overlap, and a failed scrape is counted and
 * named, never thrown.
 */
export class ServerMetricsSampler {
  private readonly points: Array<{ atNs: bigint; point: TimedPoint['point'] }> = [];
  private readonly errors = new Map<string, number>();
  private failed = 0;
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<void> | null = null;
  private stopped = false;
  private lastStartNs = 0n;
  private readonly dispatcher;
  private readonly clockNs: () => bigint;

  constructor(private readonly options: SamplerOptions) {
    this.dispatcher = scrapeDispatcher(options.policy, options.resolve);
    this.clockNs = options.clockNs ?? (() => process.hrtime.bigint());
  }

  /** The first scrape, awaited, then the periodic ones. */
  async start(): Promise<void> {
    await this.scrapeOnce();
    this.schedule();
  }

  /** The last scrape, then the series and diagnostics with scrape times on the run's clock. */
  async stop(anchorNs: bigint, window?: GaugeWindow): Promise<SamplerResult> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.inFlight;
    await this.scrapeOnce();
    await this.dispatcher.close().catch(() => undefined);
    return this.result(anchorNs, window);
  }

  /** Stops without the last scrape (the run ended unmeasured). */
  async abandon(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.inFlight;
    await this.dispatcher.destroy().catch(() => undefined);
  }

  private schedule(): void {
    if (this.stopped) return;
    const interval = this.options.intervalMs ?? DEFAULT_SCRAPE_INTERVAL_MS;
    const waitMs = Math.max(0, interval - Number(this.clockNs() - this.lastStartNs) / 1e6);
    this.timer = setTimeout(() => {
      this.inFlight = this.scrapeOnce().finally(() => {
        this.inFlight = null;
        this.schedule();
      });
    }, waitMs);
    this.timer.unref();
  }

  private async scrapeOnce(): Promise<void> {
    const atNs = this.clockNs();
    this.lastStartNs = atNs;
    const result = await scrapeMetrics(this.options.url, { ...this.options, dispatcher: this.dispatcher });
    if (result.ok) {
      this.points.push({ atNs, point: pointOf(result.samples, this.options.model) });
    } else {
      this.failed++;
      this.errors.set(result.error, (this.errors.get(result.error) ?? 0) + 1);
    }
  }

  private result(anchorNs: bigint, window?: GaugeWindow): SamplerResult {
    const timed = this.points.map(({ atNs, point }) => ({ offsetMs: Number(atNs - anchorNs) / 1e6, point }));
    const series = seriesOf(timed);
    const errors = [...this.errors.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, KEPT_ERRORS)
      .map(([error, count]) => (count > 1 ? `${error} (${count}x)` : error));
    const diagnostics = deriveServerDiagnostics({
      series,
      scrapes: this.points.length,
      failedScrapes: this.failed,
      errors,
      ...(window ? { window } : {}),
    });
    return { series, diagnostics };
  }
}
