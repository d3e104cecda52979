import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { SeverityNumber } from '@opentelemetry/api-logs';
import type { WorkerEnv } from '@teapot/config';
import { MEASURED_RUN_STATUSES, type DeploymentVerification } from '@teapot/contracts';
import type { Deployment } from '@teapot/db';
import type { RunResult } from '@teapot/measure';
import { WORKER_ENV } from '../env/worker-env';
import { WorkerMetrics } from '../metrics/worker-metrics';
import type { RunToProcess } from '../runs/run-repository';
import { DEPLOYMENT_VERDICT_EVENT } from './otlp-instruments';
import type { OtlpExport } from './otlp-export';
import { otlpSettingsOf } from './otlp-settings';
import { runFiguresOf } from './run-figures';

/**
 * Each measured run's figures into the worker's Prometheus histograms and, when an
 * OTEL_EXPORTER_OTLP_*ENDPOINT is set, over OTLP with each deployment verdict. Called after the result
 * or verdict is committed, never awaited, never throwing: the measurement and the stored verdict do
 * not depend on a collector.
 */
@Injectable()
export class RunTelemetry implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(RunTelemetry.name);
  /** Null when export is off. */
  otlp: OtlpExport | null = null;

  constructor(
    @Inject(WORKER_ENV) private readonly env: WorkerEnv,
    private readonly metrics: WorkerMetrics,
  ) {}

  /** The SDK is loaded only when export is on: half a second of boot for every worker otherwise. */
  async onModuleInit(): Promise<void> {
    const settings = otlpSettingsOf(this.env);
    if (!settings) return;
    const { OtlpExport } = await import('./otlp-export');
    this.otlp = new OtlpExport(settings, this.logger);
    this.logger.log(
      `OTLP export: metrics to ${settings.metricsUrl ?? '(off)'}, events to ${settings.logsUrl ?? '(off)'}`,
    );
  }

  /**
   * A stored run with a result, when it counts as measured (as trends count it): its latency samples
   * into this process's Prometheus histograms, and its figures over OTLP when that is on.
   */
  runStored(
    run: Pick<RunToProcess, 'id' | 'profileId' | 'profileSnapshot' | 'endpoint' | 'config'>,
    result: RunResult,
    status: string,
  ): void {
    if (!(MEASURED_RUN_STATUSES as readonly string[]).includes(status)) return;
    try {
      const figures = runFiguresOf(run, result, status);
      if (!figures) return;
      this.metrics.recordRunFigures(figures);
      this.otlp?.recordRun(figures).catch((error) => this.warn(`run ${run.id}: figures not exported`, error));
    } catch (error) {
      this.warn(`run ${run.id}: figures not recorded`, error);
    }
  }

  /** A stored verdict as a `teapot.deployment.verdict` event: WARN when it regressed. */
  deploymentVerified(deployment: Deployment, verification: DeploymentVerification): void {
    const otlp = this.otlp;
    if (!otlp) return;
    try {
      otlp.emit(
        DEPLOYMENT_VERDICT_EVENT,
        verification.verdict === 'regressed' ? SeverityNumber.WARN : SeverityNumber.INFO,
        {
          'teapot.deployment.id': deployment.id,
          'teapot.deployment.label': deployment.label,
          ...(deployment.version === null ? {} : { 'teapot.deployment.version': deployment.version }),
          'teapot.deployment.effective_at': deployment.effectiveAt.toISOString(),
          'teapot.deployment.verdict': verification.verdict,
          'teapot.deployment.threshold': verification.threshold,
          'teapot.endpoint.id': deployment.endpointId,
        },
        {
          profiles: verification.profiles.map((profile) => ({
            profile: profile.profileName,
            verdict: profile.verdict,
            reason: profile.reason,
            // The rows the verdict rests on: judged, with enough runs for an interval.
            changes: profile.metrics
              .filter((metric) => metric.judged && !metric.insufficient)
              .map((metric) => ({
                metric: `${metric.metric}.${metric.statistic}`,
                relative: metric.relative,
                verdict: metric.verdict,
              })),
          })),
        },
      );
    } catch (error) {
      this.warn(`deployment ${deployment.id}: verdict not exported`, error);
    }
  }

  /** After every module's beforeApplicationShutdown: the last runs are stored, so their figures go too. */
  async onApplicationShutdown(): Promise<void> {
    await this.otlp?.shutdown();
  }

  private warn(what: string, error: unknown): void {
    this.logger.warn(`${what}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
