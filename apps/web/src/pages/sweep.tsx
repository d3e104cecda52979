import { useMemo } from 'preact/hooks';
import { get, type Schemas } from '../api/client';
import { Empty, Show } from '../components/states';
import { FrontierPlot, GuideHint, SloPlot } from '../components/sweep-plots';
import { href } from '../router';
import { errorText, formatRate, formatTime } from '../shape/format';
import {
  costText,
  formatLoad,
  frontierOf,
  pointOrdinal,
  sloGuides,
  sloPlots,
  stopReasonText,
  targetName,
  targetVerdict,
} from '../shape/sweep';
import { useApi } from '../use-api';

type Sweep = Schemas['SweepDetailDto'];

function Outcome({ sweep }: { sweep: Sweep }) {
  const capacity =
    sweep.capacity === null
      ? sweep.stopReason === 'below_lowest'
        ? 'below the lowest point'
        : 'none found'
      : formatLoad(sweep.capacity, sweep.unit);
  return (
    <div class="figures sweep-outcome">
      {[
        ['status', sweep.status],
        ['capacity at SLO', capacity],
        ['highest load met', formatLoad(sweep.bracket.passed, sweep.unit)],
        ['lowest load missed', formatLoad(sweep.bracket.failed, sweep.unit)],
        ['cost at capacity', costText(sweep)],
      ].map(([label, value]) => (
        <div class="figure" key={label} data-figure={label}>
          <span class="label">{label}</span>
          <span class="value">{value}</span>
        </div>
      ))}
    </div>
  );
}

function PointsTable({ sweep }: { sweep: Sweep }) {
  const targets = sweep.slo?.targets ?? [];
  return (
    <div class="table-scroll">
      <table class="sweep-points">
        <thead>
          <tr>
            {[
              'point',
              `offered (${sweep.unit})`,
              ...targets.map((target) => `${targetName(target)} (limit ${target.limitMs} ms)`),
              'goodput share',
              'tokens/s',
              'run',
            ].map((title) => (
              <th key={title}>{title}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {sweep.points.map((point) => (
            <tr key={point.runId} class={point.onFrontier ? 'on-frontier' : undefined}>
              <td>{point.index + 1}</td>
              <td>{formatLoad(point.offered, '')}</td>
              {targets.map((target) => {
                const result = point.figures?.targets.find(
                  (t) => t.metric === target.metric && t.percentile === target.percentile,
                );
                const verdict = result ? targetVerdict(result) : '–';
                return (
                  <td key={targetName(target)}>
                    {result?.valueMs != null ? `${Number(result.valueMs.toPrecision(3))} ms ` : ''}
                    <span class={`target ${verdict}`}>{verdict}</span>
                  </td>
                );
              })}
              <td>
                {point.figures?.goodShare != null
                  ? `${Number((point.figures.goodShare * 100).toPrecision(3))} %`
                  : '–'}
              </td>
              <td>{formatRate(point.figures?.outputTokensPerS, '')}</td>
              <td>
                <a href={href.run(point.runId)}>{point.runStatus}</a>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Plots({ sweep }: { sweep: Sweep }) {
  const slo = useMemo(() => sloPlots(sweep), [sweep]);
  const frontier = useMemo(() => frontierOf(sweep), [sweep]);
  const guides = useMemo(() => sloGuides(sweep.slo), [sweep]);
  return (
    <>
      <section class="slo-plots">
        <h2>SLO targets against offered load</h2>
        {slo.length === 0 ? (
          <Empty>This sweep has no SLO: nothing to judge the points by.</Empty>
        ) : (
          slo.map((plot) => (
            <SloPlot key={plot.title} plot={plot} unit={sweep.unit} capacity={sweep.capacity} />
          ))
        )}
        <p class="hint">Dashed red: the SLO limit. Solid green: the capacity found.</p>
      </section>
      <section class="frontier">
        <h2>Frontier</h2>
        {frontier.all.length === 0 ? (
          <Empty>No point has been measured yet.</Empty>
        ) : (
          <FrontierPlot frontier={frontier} guides={guides} />
        )}
        <p class="hint">
          vLLM&apos;s Pareto terms: each point&apos;s output tokens/s per user (per stream in flight) against
          per GPU; the blue line joins the points no other point beats on both, the green ring is the capacity
          point. Filled: the point met the SLO; hollow red: it missed.{' '}
          {guides.length > 0 ? <GuideHint /> : null}
        </p>
      </section>
    </>
  );
}

function SweepHeader({ sweep }: { sweep: Sweep }) {
  const points = `${sweep.points.length} ${sweep.points.length === 1 ? 'point' : 'points'} by ${sweep.dimension}`;
  return (
    <header class="page-header">
      <h1>Sweep {formatTime(sweep.queuedAt)}</h1>
      <p>
        <a href={href.endpoint(sweep.endpointId)}>its endpoint</a> · {points} · {stopReasonText(sweep)}
        {sweep.error ? ` · ${errorText(sweep.error, sweep.errorClass)}` : ''}
      </p>
    </header>
  );
}

export function SweepPage({ id }: { id: string }) {
  const loaded = useApi((signal) => get('/sweeps/{id}', { path: { id }, signal }), [id]);
  return (
    <Show loaded={loaded} what="the sweep">
      {(sweep) => [
        <SweepHeader key="header" sweep={sweep} />,
        <Outcome key="outcome" sweep={sweep} />,
        <section key="points">
          <h2>Points</h2>
          {sweep.points.length === 0 ? <Empty>No point measured yet.</Empty> : <PointsTable sweep={sweep} />}
        </section>,
        <Plots key="plots" sweep={sweep} />,
      ]}
    </Show>
  );
}

/** "point 3 of sweep 12/05 14:02" on a run page whose run is a sweep point. */
export function SweepLink({ sweepId, sweepIndex }: { sweepId: string; sweepIndex: number }) {
  return (
    <a class="sweep-link" href={href.sweep(sweepId)}>
      {pointOrdinal(sweepIndex)} of sweep {sweepId.slice(0, 8)}
    </a>
  );
}
