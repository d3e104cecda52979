import { Inject, Injectable } from '@nestjs/common';
import type { ApiEnv } from '@teapot/config';
import { HEADLINES, type Headline, type MetricName } from '@teapot/contracts';
import { LatestResultsStore, type LatestDeployment, type LatestResult, type SkippedRuns } from '@teapot/db';
import { Gauge } from 'prom-client';
import { API_ENV } from '../env/env.module';
import { ApiMetrics } from './api-metrics';
import { PrismaService } from '../prisma/prisma.service';
import { Cached } from './cached';

/** Scrapes within this long of the last query get its figures: one query however many Prometheus servers scrape. */
export const LATEST_RESULTS_CACHE_MS = 5_000;

/** The headline figures /metrics shows, under Prometheus names in base units (seconds, not ms). */
const RESULT_GAUGES: ReadonlyArray<{ metric: MetricName; name: string; help: string; perUnit: number }> = [
  { metric: 'itl', name: 'teapot_latest_itl_seconds', help: 'Inter-token latency', perUnit: 1000 },
  { metric: 'tpot', name: 'teapot_latest_tpot_seconds', help: 'Time per output token', perUnit: 1000 },
  { metric: 'ttft', name: 'teapot_latest_ttft_seconds', help: 'Time to first token', perUnit: 1000 },
  {
    metric: 'output_tokens_per_s',
    name: 'teapot_latest_output_tokens_per_second',
    help: 'Output tokens per second of measured time',
    perUnit: 1,
  },
  {
    metric: 'error_rate',
    name: 'teapot_latest_error_ratio',
    help: 'Failed / (succeeded + failed) measured requests',
    perUnit: 1,
  },
];

/** The window `teapot_runs_skipped_last_day` counts over. */
const SKIPPED_WINDOW_MS = 24 * 3_600_000;

/** Bounded labels only: ids, names and the version number, never a run id or free text. */
const GROUP_LABELS = ['endpoint', 'endpoint_id', 'profile', 'profile_id', 'config_version'] as const;
type GroupLabels = Record<(typeof GROUP_LABELS)[number], string>;

/** What one query brings: the latest runs and each endpoint's latest deployment. */
interface Latest {
  results: LatestResult[];
  deployments: LatestDeployment[];
}

interface ResultGauge {
  gauge: Gauge;
  headlines: Headline[];
  perUnit: number;
}

/**
 * The latest measured run of every (endpoint, profile, serving-configuration version) as gauges:
 * read in one query (one index probe per pair), at most once per LATEST_RESULTS_CACHE_MS.
 */
@Injectable()
export class LatestResults {
  private readonly gauges: ResultGauge[];
  private readonly startedAt: Gauge;
  private readonly saturated: Gauge;
  private readonly omitted: Gauge;
  private readonly deployedAt: Gauge;
  private readonly deploymentVerdict: Gauge;
  private readonly skipped: Gauge;
  private readonly rows = new Cached(LATEST_RESULTS_CACHE_MS, () => this.query());
  private readonly skippedRows = new Cached(LATEST_RESULTS_CACHE_MS, () =>
    this.store.skippedSince(new Date(Date.now() - SKIPPED_WINDOW_MS), this.env.TEAPOT_METRICS_MAX_GROUPS),
  );
  private shownSkipped: SkippedRuns[] | null = null;
  /** The rows the gauges hold now: they are reset only when a new query came back. */
  private shown: Latest | null = null;
  private readonly store: LatestResultsStore;

  constructor(
    prisma: PrismaService,
    metrics: ApiMetrics,
    @Inject(API_ENV) private readonly env: Pick<ApiEnv, 'TEAPOT_METRICS_MAX_GROUPS'>,
  ) {
    this.store = new LatestResultsStore(prisma.pool);
    const registers = [metrics.registry];
    this.gauges = RESULT_GAUGES.map(({ metric, name, help, perUnit }) => {
      const headlines = HEADLINES.filter((h) => h.metric === metric);
      const perStatistic = headlines.length > 1;
      const statistics = headlines.map((h) => h.statistic).join(', ');
      return {
        gauge: new Gauge({
          name,
          help: `${help} of the latest measured run${perStatistic ? ` (statistic: ${statistics} of the run)` : ''}.`,
          labelNames: perStatistic ? [...GROUP_LABELS, 'statistic'] : [...GROUP_LABELS],
          registers,
        }),
        headlines,
        perUnit,
      };
    });
    this.startedAt = new Gauge({
      name: 'teapot_latest_run_start_timestamp_seconds',
      help: 'Start of the latest measured run (Unix time): how old the other teapot_latest_* figures are.',
      labelNames: GROUP_LABELS,
      registers,
    });
    this.saturated = new Gauge({
      name: 'teapot_latest_run_client_saturated',
      help: '1 when the latest run measured a saturated client (its figures describe the client, not the server).',
      labelNames: GROUP_LABELS,
      registers,
    });
    this.omitted = new Gauge({
      name: 'teapot_latest_results_omitted',
      help: 'Endpoint, profile and configuration groups left out of teapot_latest_* (TEAPOT_METRICS_MAX_GROUPS, least recently run first).',
      registers,
    });
    // Per endpoint, one series per deployment over time: Grafana draws each as an annotation at its value.
    this.deployedAt = new Gauge({
      name: 'teapot_latest_deployment_timestamp_seconds',
      help: "When the endpoint's latest deployment took effect (Unix time); labelled with its id, label, version and the configuration version it brought ('' when none).",
      labelNames: ['endpoint', 'endpoint_id', 'deployment_id', 'deployment', 'version', 'config_version'],
      registers,
    });
    this.deploymentVerdict = new Gauge({
      name: 'teapot_latest_deployment_verdict',
      help: "1 for the verdict of the endpoint's latest deployment (pending while its runs are measured).",
      labelNames: ['endpoint', 'endpoint_id', 'deployment_id', 'verdict'],
      registers,
    });
    this.skipped = new Gauge({
      name: 'teapot_runs_skipped_last_day',
      help: 'Runs queued in the last 24 h and never measured: a slot missed while nothing could queue it, or a run that could not start before its deadline (GET /runs?status=aborted says why).',
      labelNames: GROUP_LABELS.filter((label) => label !== 'config_version'),
      registers,
    });
  }

  /** Brings the gauges up to date (cached queries unless LATEST_RESULTS_CACHE_MS has passed). */
  async refresh(): Promise<void> {
    await this.refreshSkipped();
    const latest = await this.rows.get();
    if (latest === this.shown) return;
    this.shown = latest;
    this.showResults(latest.results);
    this.showDeployments(latest.deployments);
  }

  private showResults(rows: LatestResult[]): void {
    for (const { gauge } of this.gauges) gauge.reset();
    this.startedAt.reset();
    this.saturated.reset();
    const max = this.env.TEAPOT_METRICS_MAX_GROUPS;
    this.omitted.set(rows.length > 0 ? Math.max(0, rows[0].groups - max) : 0);
    for (const row of rows.slice(0, max)) {
      const labels: GroupLabels = { ...seriesLabels(row), config_version: String(row.configVersion) };
      for (const { gauge, headlines, perUnit } of this.gauges) {
        for (const h of headlines) {
          const value = row.figures[h.field];
          if (value === null || value === undefined) continue;
          gauge.set(headlines.length > 1 ? { ...labels, statistic: h.statistic } : labels, value / perUnit);
        }
      }
      this.startedAt.set(labels, row.startedAt.getTime() / 1000);
      if (row.clientSaturated !== null) this.saturated.set(labels, row.clientSaturated ? 1 : 0);
    }
  }

  private showDeployments(deployments: LatestDeployment[]): void {
    this.deployedAt.reset();
    this.deploymentVerdict.reset();
    for (const deployment of deployments) {
      const labels = {
        endpoint: deployment.endpoint,
        endpoint_id: deployment.endpointId,
        deployment_id: deployment.id,
      };
      this.deployedAt.set(
        {
          ...labels,
          deployment: deployment.label,
          version: deployment.version ?? '',
          config_version: deployment.configVersion === null ? '' : String(deployment.configVersion),
        },
        deployment.effectiveAt.getTime() / 1000,
      );
      this.deploymentVerdict.set({ ...labels, verdict: deployment.verdict ?? 'pending' }, 1);
    }
  }

  private async query(): Promise<Latest> {
    const max = this.env.TEAPOT_METRICS_MAX_GROUPS;
    const [results, deployments] = await Promise.all([
      this.store.latest(
        this.gauges.flatMap((g) => g.headlines),
        max,
      ),
      this.store.latestDeployments(max),
    ]);
    return { results, deployments };
  }

  private async refreshSkipped(): Promise<void> {
    const rows = await this.skippedRows.get();
    if (rows === this.shownSkipped) return;
    this.shownSkipped = rows;
    this.skipped.reset();
    for (const row of rows) this.skipped.set(seriesLabels(row), row.count);
  }
}

/** The endpoint and profile labels of a series, names and ids. */
function seriesLabels(row: Pick<SkippedRuns, 'endpoint' | 'endpointId' | 'profile' | 'profileId'>) {
  return {
    endpoint: row.endpoint,
    endpoint_id: row.endpointId,
    profile: row.profile,
    profile_id: row.profileId,
  };
}
