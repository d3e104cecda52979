import type { MetricName } from '@teapot/contracts';
import { LatencyHistogram } from '@teapot/stats';
import { queriesOf, type ReadStore } from '../run-store';

/** One run's stored histogram of one metric, decoded. */
export interface StoredHistogram {
  runId: string;
  metric: MetricName;
  histogram: LatencyHistogram;
}

/** One run's stored histogram of one metric, as stored: merged in place without decoding. */
export interface EncodedHistogram {
  runId: string;
  encoded: Buffer;
}

/** The per-run histograms the run writer stores (run_histograms). */
export class RunHistogramStore {
  constructor(private readonly db: ReadStore) {}

  /** The non-empty histograms of these runs and metrics, by run id then metric. */
  async nonEmpty(runIds: readonly string[], metrics: readonly MetricName[]): Promise<StoredHistogram[]> {
    const { rows } = await queriesOf(this.db).query<{ run_id: string; metric: MetricName; encoded: Buffer }>(
      `SELECT run_id, metric, encoded FROM run_histograms
        WHERE run_id = ANY($1::uuid[]) AND metric = ANY($2) AND count > 0 ORDER BY run_id, metric`,
      [runIds, metrics],
    );
    return rows.map((row) => ({
      runId: row.run_id,
      metric: row.metric,
      histogram: LatencyHistogram.decode(row.encoded),
    }));
  }

  /** Every stored histogram of one metric of these runs, encoded. */
  async encoded(runIds: readonly string[], metric: MetricName): Promise<EncodedHistogram[]> {
    const { rows } = await queriesOf(this.db).query<{ run_id: string; encoded: Buffer }>(
      'SELECT run_id, encoded FROM run_histograms WHERE run_id = ANY($1::uuid[]) AND metric = $2',
      [runIds, metric],
    );
    return rows.map((row) => ({ runId: row.run_id, encoded: row.encoded }));
  }
}
