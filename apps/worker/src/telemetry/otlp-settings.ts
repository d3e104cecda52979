import type { WorkerEnv } from '@teapot/config';

/** Where the signals go; a signal without a URL is not exported. */
export interface OtlpSettings {
  metricsUrl: string | null;
  logsUrl: string | null;
  timeoutMs: number;
  /** service.instance.id of the resource: the worker's id. */
  instanceId: string;
}

/** The OTLP settings of the environment, or null when no endpoint is set (export off). */
export function otlpSettingsOf(
  env: Pick<
    WorkerEnv,
    | 'OTEL_EXPORTER_OTLP_ENDPOINT'
    | 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT'
    | 'OTEL_EXPORTER_OTLP_LOGS_ENDPOINT'
    | 'OTEL_EXPORTER_OTLP_TIMEOUT'
    | 'WORKER_ID'
  >,
): OtlpSettings | null {
  // The specification's rule: the base URL gets the signal's path, a signal's own URL is used as given.
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.replace(/\/+$/, '');
  const metricsUrl = env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT ?? (base ? `${base}/v1/metrics` : null);
  const logsUrl = env.OTEL_EXPORTER_OTLP_LOGS_ENDPOINT ?? (base ? `${base}/v1/logs` : null);
  if (!metricsUrl && !logsUrl) return null;
  return { metricsUrl, logsUrl, timeoutMs: env.OTEL_EXPORTER_OTLP_TIMEOUT, instanceId: env.WORKER_ID };
}
