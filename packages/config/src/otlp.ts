import { z } from 'zod';
import { wholeNumber } from './variables';

const otlpUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL, e.g. http://127.0.0.1:4318' })
  .optional();

/**
 * OTLP/HTTP export of run figures and deployment verdicts, under OpenTelemetry's standard variable
 * names so a collector set up for other services needs nothing new. No endpoint: nothing is exported.
 */
export const otlpEnvShape = {
  /** Base URL: metrics go to `<base>/v1/metrics`, logs to `<base>/v1/logs`. */
  OTEL_EXPORTER_OTLP_ENDPOINT: otlpUrl,
  /** The full metrics URL, used as given; wins over the base. */
  OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: otlpUrl,
  /** The full logs URL, used as given; wins over the base. */
  OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: otlpUrl,
  /** One export's limit: a collector that hangs costs at most this, off the measuring path. */
  OTEL_EXPORTER_OTLP_TIMEOUT: wholeNumber(100, 60_000, 10_000),
};
