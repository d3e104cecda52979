import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Attributes, Counter, Gauge, Histogram } from '@opentelemetry/api';
import { SeverityNumber, type AnyValueMap, type Logger } from '@opentelemetry/api-logs';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchLogRecordProcessor, LoggerProvider } from '@opentelemetry/sdk-logs';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { LATENCY_BUCKETS_S } from '@teapot/contracts';
import {
  CLIENT_SATURATED,
  groupAttributes,
  OUTPUT_TOKENS_PER_SECOND,
  RUN_FINISHED_EVENT,
  RUN_HISTOGRAMS,
  RUN_REQUESTS,
} from './otlp-instruments';
import type { LatencyMetric } from '../metrics/run-histograms';
import type { OtlpSettings } from './otlp-settings';
import type { RunFigures } from './run-figures';

export interface ExportLog {
  warn(message: string): void;
  log(message: string): void;
}

/** The longest a stopping worker waits for its last export (a collector that hangs must not hold up a deploy). */
const SHUTDOWN_WAIT_MS = 5_000;

/** ITL samples recorded between two yields to the event loop: a long run never holds the loop for long. */
const SAMPLES_PER_SLICE = 4096;

/**
 * OTLP/HTTP (JSON) export of run figures (metrics) and events (log records) with the official SDK.
 * Nothing here may slow or fail a run: callers never await an export, each export gives up after
 * `timeoutMs`, one flush is in flight at a time, and a failing collector is logged once (and again
 * when it recovers), never thrown.
 */
export class OtlpExport {
  private readonly meters: MeterProvider | null = null;
  private readonly loggers: LoggerProvider | null = null;
  private readonly logger: Logger | null = null;
  private readonly histograms: Array<{ histogram: Histogram; metric: LatencyMetric }>;
  private readonly throughput: Gauge;
  private readonly saturated: Gauge;
  private readonly requests: Counter;
  private flushing: Promise<void> | null = null;
  private flushAgain = false;

  constructor(
    readonly settings: OtlpSettings,
    private readonly log: ExportLog,
  ) {
    const resource = resourceFromAttributes({
      'service.name': 'teapot-worker',
      'service.instance.id': settings.instanceId,
    });
    const timeoutMillis = settings.timeoutMs;
    if (settings.metricsUrl) {
      const exporter = reporting(
        new OTLPMetricExporter({ url: settings.metricsUrl, timeoutMillis }),
        new ExportHealth('metrics', settings.metricsUrl, log),
      );
      // Each run flushes its figures at once; the periodic export only repeats the cumulative state.
      const reader = new PeriodicExportingMetricReader({
        exporter,
        exportIntervalMillis: 60_000,
        exportTimeoutMillis: timeoutMillis,
      });
      this.meters = new MeterProvider({ resource, readers: [reader] });
    }
    if (settings.logsUrl) {
      const exporter = reporting(
        new OTLPLogExporter({ url: settings.logsUrl, timeoutMillis }),
        new ExportHealth('logs', settings.logsUrl, log),
      );
      this.loggers = new LoggerProvider({
        resource,
        processors: [new BatchLogRecordProcessor({ exporter, exportTimeoutMillis: timeoutMillis })],
      });
      this.logger = this.loggers.getLogger('teapot');
    }
    // Without a metrics URL the instruments come from a provider with no reader: recording costs nothing.
    const meter = (this.meters ?? new MeterProvider()).getMeter('teapot');
    this.histograms = RUN_HISTOGRAMS.map(({ name, metric, description }) => ({
      histogram: meter.createHistogram(name, {
        description,
        unit: 's',
        advice: { explicitBucketBoundaries: [...LATENCY_BUCKETS_S[metric]] },
      }),
      metric,
    }));
    this.throughput = meter.createGauge(OUTPUT_TOKENS_PER_SECOND, {
      description: 'Output tokens per second of the run’s measured time.',
      unit: '{token}/s',
    });
    this.saturated = meter.createGauge(CLIENT_SATURATED, {
      description: '1 when the run measured a saturated client (its tail figures describe the client).',
      unit: '1',
    });
    this.requests = meter.createCounter(RUN_REQUESTS, {
      description: 'Measured requests by outcome; failed ones by error class (error.type).',
      unit: '{request}',
    });
  }

  /** Records a run's figures and its `teapot.run.finished` event, then flushes; resolves when recorded, not when sent. */
  async recordRun(figures: RunFigures): Promise<void> {
    const attributes = groupAttributes(figures.group);
    for (const { histogram, metric } of this.histograms) {
      const values = figures.samples[metric];
      for (let at = 0; at < values.length; at += SAMPLES_PER_SLICE) {
        if (at > 0) await yieldToLoop();
        const end = Math.min(values.length, at + SAMPLES_PER_SLICE);
        for (let i = at; i < end; i += 1) histogram.record(values[i], attributes);
      }
    }
    this.throughput.record(figures.outputTokensPerS, attributes);
    this.saturated.record(figures.clientSaturated ? 1 : 0, attributes);
    const { succeeded, failed, incomplete } = figures.requests;
    this.requests.add(succeeded, { ...attributes, 'teapot.request.outcome': 'succeeded' });
    this.requests.add(incomplete, { ...attributes, 'teapot.request.outcome': 'incomplete' });
    for (const [errorClass, count] of Object.entries(figures.errorsByClass))
      this.requests.add(count, {
        ...attributes,
        'teapot.request.outcome': 'failed',
        'error.type': errorClass,
      });
    this.emit(RUN_FINISHED_EVENT, SeverityNumber.INFO, {
      ...attributes,
      'teapot.run.id': figures.runId,
      'teapot.run.status': figures.status,
      'teapot.run.requests.succeeded': succeeded,
      'teapot.run.requests.failed': failed,
      'teapot.run.output_tokens_per_second': figures.outputTokensPerS,
    });
    this.flush();
  }

  /** One event (log record) with its attributes and an optional structured body, flushed at once. */
  emit(eventName: string, severity: SeverityNumber, attributes: Attributes, body?: AnyValueMap): void {
    this.logger?.emit({
      eventName,
      severityNumber: severity,
      severityText: SeverityNumber[severity],
      attributes,
      body,
    });
    this.flush();
  }

  /** Sends what is recorded now; a flush already in flight is followed by one more, never by a queue of them. */
  flush(): void {
    if (this.flushing) {
      this.flushAgain = true;
      return;
    }
    const flushed = Promise.allSettled([this.meters?.forceFlush(), this.loggers?.forceFlush()]);
    this.flushing = flushed.then(() => {
      this.flushing = null;
      if (this.flushAgain) {
        this.flushAgain = false;
        this.flush();
      }
    });
  }

  /** Waits for the flush in flight (tests, shutdown); never rejects. */
  async settled(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  /** A last export, then the providers stop; shutdown waits for it at most SHUTDOWN_WAIT_MS or the timeout. */
  async shutdown(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, Math.min(SHUTDOWN_WAIT_MS, this.settings.timeoutMs));
    });
    await Promise.race([Promise.allSettled([this.meters?.shutdown(), this.loggers?.shutdown()]), waited]);
    clearTimeout(timer);
  }
}

/** Logs the first failure of a streak and the recovery after it, nothing in between. */
class ExportHealth {
  private failing = false;

  constructor(
    private readonly signal: string,
    private readonly url: string,
    private readonly log: ExportLog,
  ) {}

  report(result: ExportResult): void {
    if (result.code === ExportResultCode.SUCCESS) {
      if (this.failing) this.log.log(`OTLP ${this.signal} export to ${this.url} works again`);
      this.failing = false;
      return;
    }
    if (this.failing) return;
    this.failing = true;
    this.log.warn(
      `OTLP ${this.signal} export to ${this.url} failed: ${result.error?.message ?? 'no reason given'}. ` +
        'Runs are not affected; further failures are not logged until an export succeeds.',
    );
  }
}

/** The exporter with each result reported to `health` first (the SDK only tells its diagnostics logger). */
function reporting<Exporter extends { export(items: never, done: (result: ExportResult) => void): void }>(
  exporter: Exporter,
  health: ExportHealth,
): Exporter {
  const send = exporter.export.bind(exporter) as (
    items: unknown,
    done: (result: ExportResult) => void,
  ) => void;
  exporter.export = ((items: unknown, done: (result: ExportResult) => void) =>
    send(items, (result) => {
      health.report(result);
      done(result);
    })) as Exporter['export'];
  return exporter;
}
