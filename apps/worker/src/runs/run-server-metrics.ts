import { decryptHeaders, type WorkerEnv } from '@teapot/config';
import type { ServerMetricsRecord } from '@teapot/db';
import type { RunResult } from '@teapot/measure';
import { measuredWindowOf, ServerMetricsSampler } from '@teapot/server-metrics';
import type { HostResolver } from '@teapot/webhooks';
import type { RunToProcess } from './run-repository';

/** A run's scrapes of its endpoint's metrics: started before the measurement, finished after it. */
export interface RunServerMetrics {
  /** The last scrape; the series on the run's clock and the diagnostics derived from them. */
  finish(result: RunResult): Promise<ServerMetricsRecord>;
  /** Stops scraping without a record (the run ended unmeasured). */
  abandon(): Promise<void>;
}

/**
 * Starts scraping the endpoint's metrics URL (none: null) with its first scrape awaited, so counters
 * are read before the run's first request. Scrapes run on this (the worker's main) thread; the run
 * measures on a thread of its own (runBenchmarkInThread), so they cannot delay its timestamps. Nothing
 * here fails the run: a URL the policy refuses, headers that cannot be read, a dead server all end as
 * the diagnostics' `error`.
 */
export async function startRunServerMetrics(
  endpoint: RunToProcess['endpoint'],
  env: WorkerEnv,
  resolve: HostResolver,
): Promise<RunServerMetrics | null> {
  if (!endpoint.metricsUrl) return null;
  let headers: Record<string, string> | undefined;
  try {
    headers = endpoint.metricsHeadersEnc
      ? decryptHeaders(endpoint.metricsHeadersEnc, env.TEAPOT_SECRET_KEY)
      : undefined;
  } catch (error) {
    return unavailable(`the metrics headers cannot be read: ${(error as Error).message}`);
  }
  const sampler = new ServerMetricsSampler({
    url: endpoint.metricsUrl,
    policy: env.TEAPOT_ENDPOINT_URL_ALLOW,
    model: endpoint.model,
    intervalMs: env.SERVER_METRICS_INTERVAL_MS,
    timeoutMs: env.SERVER_METRICS_TIMEOUT_MS,
    maxBodyBytes: env.SERVER_METRICS_MAX_BYTES,
    resolve,
    ...(headers ? { headers } : {}),
  });
  await sampler.start();
  return {
    async finish(result) {
      const window = measuredWindowOf(result);
      const { series, diagnostics } = await sampler.stop(BigInt(result.monotonicAnchorNs), window);
      const { offsetsMs, ...rest } = series;
      return { diagnostics, offsetsMs, series: rest };
    },
    abandon: () => sampler.abandon(),
  };
}

function unavailable(reason: string): RunServerMetrics {
  return {
    finish: () =>
      Promise.resolve({
        diagnostics: { scrapes: 0, failedScrapes: 0, error: `metrics unavailable: ${reason}` },
        offsetsMs: [],
        series: {},
      }),
    abandon: () => Promise.resolve(),
  };
}
