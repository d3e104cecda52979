import { useMemo, useState } from 'preact/hooks';
import { get, type GetOptions, type Schemas } from '../api/client';
import { Picker } from './picker';
import {
  type ChangeMarker,
  changePointMarkers,
  deploymentMarkers,
  belowLowestSweeps,
  formatTrendValue,
  type PlotMarker,
  TREND_METRICS,
  trendAxisLabel,
  trendPlotData,
  type TrendBucket,
  type TrendPlotData,
  xRange,
} from '../shape/trend';
import { CONFIG_FIELDS } from '../shape/config';
import { useApi } from '../use-api';
import { drawVerticals, PALETTE, Plot, themedAxis } from './plot';
import { Empty, Show } from './states';

type TrendQuery = NonNullable<GetOptions<'/trends'>['query']>;
type GroupField = NonNullable<TrendQuery['groupBy']>[number];
type ChangePointMetric = NonNullable<GetOptions<'/change-points'>['query']>['metric'];

const RANGES = [
  { name: '24h', label: 'last 24 hours', seconds: 86_400 },
  { name: '7d', label: 'last 7 days', seconds: 7 * 86_400 },
  { name: '30d', label: 'last 30 days', seconds: 30 * 86_400 },
  { name: '90d', label: 'last 90 days', seconds: 90 * 86_400 },
] as const;
const BUCKETS: Array<{ name: TrendBucket; label: string }> = [
  { name: 'run', label: 'each run' },
  { name: 'hour', label: 'hour' },
  { name: 'day', label: 'day' },
  { name: 'week', label: 'week' },
];
const CHANGE_POINT_MODES = [
  { name: 'robust', label: 'robust (steps and drifts)' },
  { name: 'otava', label: 'Otava (E-Divisive)' },
  { name: 'off', label: 'not shown' },
] as const;
// `endpoint` is every run of this page: one series.
const GROUPS: Array<{ name: GroupField; label: string }> = [
  { name: 'endpoint', label: 'nothing (one series)' },
  ...CONFIG_FIELDS,
  { name: 'profile', label: 'profile' },
];

/** What a point is over, by the trend's weighting. */
function pointMeaning(trend: Schemas['TrendDto']): string {
  if (trend.weighting === 'sweep') {
    const of =
      trend.bucket === 'run' ? 'one capacity search' : `its ${trend.bucket}'s finished capacity searches`;
    return `Each point is the ${trend.statistic === 'mean' ? 'mean' : 'median'} of ${of}, one sample per sweep.`;
  }
  const of = trend.bucket === 'run' ? 'its run' : `its ${trend.bucket}'s runs`;
  if (trend.weighting === 'run')
    return `Each point pools ${of}: totals over total measured time, not an average of per-run rates.`;
  const samples = trend.weighting === 'token' ? 'every token' : 'every request';
  return `Each point is the ${trend.statistic} over ${samples} of ${of}, from merged histograms (not an average of per-run figures).`;
}

interface Picks {
  metric: (typeof TREND_METRICS)[number]['name'];
  statistic: TrendQuery['statistic'];
  bucket: TrendBucket;
  range: (typeof RANGES)[number]['name'];
  groupBy: GroupField;
  includeSaturated: boolean;
  changePoints: (typeof CHANGE_POINT_MODES)[number]['name'];
}

/** The picks whose picker changes only themselves (a new metric may also change the statistic). */
type SimplePick = 'statistic' | 'bucket' | 'range' | 'groupBy' | 'changePoints';

/** Deployment markers: a colour no series takes, readable on both backgrounds. */
export const MARKER_COLOUR = '#8250df';
/** Change points: solid, in another colour no series takes, so they never read as deployments. */
export const CHANGE_COLOUR = '#e03131';

/** Deployments: dashed lines labelled with their verdict at the top. */
function drawDeployments(markers: readonly PlotMarker[]) {
  return drawVerticals(markers, { colour: MARKER_COLOUR, dash: [6, 4], labelsFrom: 'top' });
}

/**
 * Change points: solid lines topped by a triangle (a drift: over a shaded band of its runs), labelled
 * with the change at the bottom, away from deployment labels.
 */
function drawChangePoints(changes: readonly ChangeMarker[]) {
  return drawVerticals(changes, {
    colour: CHANGE_COLOUR,
    dash: [],
    labelsFrom: 'bottom',
    decorate: (u, x, i) => {
      const { ctx, bbox } = u;
      const ratio = devicePixelRatio || 1;
      const endX = changes[i].endX;
      if (endX !== null) {
        const end = Math.min(u.valToPos(endX, 'x', true), bbox.left + bbox.width);
        ctx.globalAlpha = 0.15;
        ctx.fillRect(x, bbox.top, Math.max(end - x, 2 * ratio), bbox.height);
        ctx.globalAlpha = 1;
      }
      const size = 6 * ratio;
      ctx.beginPath();
      ctx.moveTo(x - size, bbox.top);
      ctx.lineTo(x + size, bbox.top);
      ctx.lineTo(x, bbox.top + size * 1.5);
      ctx.closePath();
      ctx.fill();
    },
  });
}

function TrendPlot({
  plot,
  markers,
  changes,
  unit,
  statistic,
}: {
  plot: TrendPlotData;
  markers: readonly PlotMarker[];
  changes: readonly ChangeMarker[];
  unit: string;
  statistic: string;
}) {
  const range = xRange(plot.data[0], [
    ...markers,
    ...changes,
    ...changes.flatMap((change) => (change.endX === null ? [] : [{ x: change.endX, label: '' }])),
  ]);
  const axisLabel = trendAxisLabel(statistic, unit);
  const few = plot.data[0].length <= 200;
  return (
    <Plot
      label={`trend of ${statistic}`}
      height={300}
      data={plot.data}
      deps={[plot, markers, changes]}
      options={(theme) => ({
        scales: { x: { time: true, range: range ? () => range : undefined } },
        hooks: { draw: [drawChangePoints(changes), drawDeployments(markers)] },
        axes: [themedAxis(theme), themedAxis(theme, { size: 60, label: axisLabel })],
        series: [
          {},
          ...plot.labels.map((label, i) => ({
            label,
            stroke: PALETTE[i % PALETTE.length],
            width: 2,
            spanGaps: plot.spanGaps,
            points: { show: few, size: 6, fill: PALETTE[i % PALETTE.length] },
            value: (_: unknown, value: number | null) => formatTrendValue(value, unit, statistic),
          })),
        ],
      })}
    />
  );
}

/** An endpoint's trend: one series per value of a serving-configuration field, pickers above. */
export function TrendPanel({
  endpointId,
  profiles,
}: {
  endpointId: string;
  profiles: ReadonlyArray<Schemas['ProfileDto']>;
}) {
  const names = useMemo(
    () => Object.fromEntries(profiles.map((profile) => [profile.id, profile.name])),
    [profiles],
  );
  const [picks, setPicks] = useState<Picks>({
    metric: 'itl',
    statistic: 'p99',
    bucket: 'hour',
    range: '7d',
    groupBy: 'weightQuant',
    includeSaturated: false,
    changePoints: 'robust',
  });
  const pick = (change: Partial<Picks>) => setPicks((current) => ({ ...current, ...change }));
  // The select is named after the pick it sets, so the form's names and its state cannot drift apart.
  const picker = <K extends SimplePick>(
    key: K,
    label: string,
    options: ReadonlyArray<{ name: Picks[K]; label: string }>,
  ) => (
    <Picker
      name={key}
      label={label}
      value={picks[key]}
      options={options}
      onChange={(value) => pick({ [key]: value } as Pick<Picks, K>)}
    />
  );
  const metric = TREND_METRICS.find((m) => m.name === picks.metric) ?? TREND_METRICS[0];
  const loaded = useApi(
    async (signal) => {
      const seconds = RANGES.find((r) => r.name === picks.range)?.seconds ?? 7 * 86_400;
      const from = new Date(Date.now() - seconds * 1000).toISOString();
      const changePoints =
        picks.changePoints === 'off'
          ? null
          : get('/change-points', {
              query: {
                endpointId: [endpointId],
                metric: picks.metric as ChangePointMetric,
                // A capacity search is one value: its series' change points are of that value (`mean`).
                statistic: metric.ofSweeps ? 'mean' : picks.statistic,
                mode: picks.changePoints,
                from,
                limit: 200,
              },
              signal,
            });
      const [trend, deployments, changes] = await Promise.all([
        get('/trends', {
          query: {
            metric: picks.metric,
            statistic: picks.statistic,
            bucket: picks.bucket,
            from,
            endpointId: [endpointId],
            groupBy: [picks.groupBy],
            includeSaturated: (picks.includeSaturated && !metric.ofSweeps) || undefined,
          },
          signal,
        }),
        get('/deployments', { query: { endpointId, from, limit: 200 }, signal }),
        changePoints,
      ]);
      return {
        trend,
        markers: deploymentMarkers(deployments.items),
        changes: changePointMarkers(changes?.changePoints ?? [], names),
      };
    },
    [endpointId, picks, names, metric],
  );
  return (
    <section class="trend">
      <h2>Trend</h2>
      <div class="pickers">
        <Picker
          name="metric"
          label="metric"
          value={picks.metric}
          options={TREND_METRICS}
          onChange={(name) => {
            const statistics = TREND_METRICS.find((m) => m.name === name)?.statistics ?? ['mean'];
            pick({
              metric: name,
              statistic: statistics.includes(picks.statistic) ? picks.statistic : statistics[0],
            });
          }}
        />
        {picker(
          'statistic',
          'statistic',
          metric.statistics.map((name) => ({ name, label: name })),
        )}
        {picker('bucket', 'one point per', BUCKETS)}
        {picker('range', 'range', RANGES)}
        {picker('groupBy', 'a series per', GROUPS)}
        {picker('changePoints', 'change points', CHANGE_POINT_MODES)}
        {metric.ofSweeps ? null : (
          <label class="check">
            <input
              type="checkbox"
              name="includeSaturated"
              checked={picks.includeSaturated}
              onChange={(event) => pick({ includeSaturated: event.currentTarget.checked })}
            />
            include runs whose client was saturated
          </label>
        )}
      </div>
      <Show loaded={loaded} what="the trend">
        {({ trend, markers, changes }) =>
          trend.series.length === 0 ? (
            <Empty>
              {trend.reason ? `No trend: ${trend.reason}.` : 'No runs in this range yet.'}
              {trend.excludedSaturatedRuns > 0 && !metric.ofSweeps
                ? ' Tick "include runs whose client was saturated" to draw them anyway.'
                : ''}
            </Empty>
          ) : (
            <TrendFigure
              trend={trend}
              markers={markers}
              changes={changes}
              names={names}
              includesSaturated={picks.includeSaturated}
            />
          )
        }
      </Show>
    </section>
  );
}

function TrendFigure({
  trend,
  markers,
  changes,
  names,
  includesSaturated,
}: {
  trend: Schemas['TrendDto'];
  markers: readonly PlotMarker[];
  changes: readonly ChangeMarker[];
  names: Record<string, string>;
  includesSaturated: boolean;
}) {
  const plot = useMemo(() => trendPlotData(trend, ['endpoint'], names), [trend, names]);
  return (
    <>
      <TrendPlot
        plot={plot}
        markers={markers}
        changes={changes}
        unit={trend.unit}
        statistic={trend.statistic}
      />
      <p class="hint">
        {pointMeaning(trend)}
        {trend.excludedSaturatedRuns > 0
          ? ` ${trend.excludedSaturatedRuns} run(s) whose client was saturated are left out.`
          : ''}
        {belowLowestSweeps(trend) > 0
          ? ` ${belowLowestSweeps(trend)} sweep(s) missed the SLO even at their lowest load: no value, not 0.`
          : ''}
        {markers.length > 0 ? ' Dashed purple lines: deployments, labelled with their verdict.' : ''}
        {changes.length > 0
          ? ' Solid red lines with a triangle: change points of the run series (a band: a drift), each listed below with the configuration change or deployment it coincides with, if any.'
          : ''}
        {includesSaturated
          ? ' Runs whose client was saturated are drawn: their timings may describe the client, not the server.'
          : ''}
      </p>
      {changes.length > 0 ? (
        <ul class="change-points" aria-label="change points">
          {changes.map((change) => (
            <li key={`${change.x}-${change.kind}-${change.detail}`} title={change.detail}>
              <span class={`change-mark ${change.kind}`} aria-hidden="true" />
              <time>
                {new Date(change.x * 1000).toLocaleString(undefined, {
                  dateStyle: 'short',
                  timeStyle: 'short',
                })}
              </time>{' '}
              {change.detail}
              <span class={change.explained ? 'attribution' : 'attribution unexplained'}>
                {change.attribution}
              </span>
            </li>
          ))}
        </ul>
      ) : null}
    </>
  );
}
