import { useMemo } from 'preact/hooks';
import type uPlot from 'uplot';
import { formatLoad, type Frontier, type OverlaySeries, overlayData, type SloPlotData } from '../shape/sweep';
import { PALETTE, Plot, type Theme, themedAxis } from './plot';

/** The measured latency, the frontier: the first series colour. */
export const MEASURED_COLOUR = '#1c7ed6';
/** An SLO limit: the colour the trend gives change points, since both say "past here is bad". */
export const LIMIT_COLOUR = '#e03131';
/** The capacity found: a colour no other series of these plots takes. */
export const CAPACITY_COLOUR = '#2f9e44';
const OTHER_POINTS = '#868e96';

const PER_USER = 'output tokens/s per user';
const PER_GPU = 'output tokens/s per GPU';

/** A vertical line at `x` (the capacity), labelled, over the plotting area. */
function drawCapacityLine(x: number, label: string) {
  return (u: uPlot) => {
    const { ctx, bbox } = u;
    const ratio = devicePixelRatio || 1;
    const at = u.valToPos(x, 'x', true);
    ctx.save();
    ctx.strokeStyle = CAPACITY_COLOUR;
    ctx.fillStyle = CAPACITY_COLOUR;
    ctx.lineWidth = 2 * ratio;
    // Solid, whatever dash the last series left on the context: the dashed line is the SLO limit.
    ctx.setLineDash([]);
    ctx.beginPath();
    ctx.moveTo(at, bbox.top);
    ctx.lineTo(at, bbox.top + bbox.height);
    ctx.stroke();
    ctx.font = `${11 * ratio}px system-ui, sans-serif`;
    const right = at + 4 * ratio + ctx.measureText(label).width < bbox.left + bbox.width;
    ctx.textAlign = right ? 'left' : 'right';
    ctx.fillText(label, at + (right ? 4 : -4) * ratio, bbox.top + 14 * ratio);
    ctx.restore();
  };
}

/** One SLO target's percentile against offered load, its limit dashed across, the capacity as a line. */
export function SloPlot({
  plot,
  unit,
  capacity,
}: {
  plot: SloPlotData;
  unit: string;
  capacity: number | null;
}) {
  return (
    <figure class="slo-plot">
      <figcaption>
        {plot.title} against offered load (limit {plot.limitMs} ms)
      </figcaption>
      <Plot
        label={`${plot.title} against offered load`}
        height={240}
        data={plot.data}
        deps={[capacity, unit]}
        options={(theme) => ({
          scales: { x: { time: false } },
          hooks: {
            draw:
              capacity === null ? [] : [drawCapacityLine(capacity, `capacity ${formatLoad(capacity, unit)}`)],
          },
          axes: [
            themedAxis(theme, { label: `offered load (${unit})` }),
            themedAxis(theme, { label: `${plot.title} (ms)`, size: 60 }),
          ],
          series: [
            { label: unit },
            line(plot.title, MEASURED_COLOUR),
            { label: 'SLO limit', stroke: LIMIT_COLOUR, dash: [8, 5], width: 2, points: { show: false } },
          ],
        })}
      />
    </figure>
  );
}

/** A line through its points, joined across the nulls other series leave. */
function line(label: string, colour: string): uPlot.Series {
  return { label, stroke: colour, width: 2, spanGaps: true, points: { show: true, size: 7, fill: colour } };
}

/** A single point drawn as a large ring (a capacity point), no line. */
function ring(label: string, colour: string): uPlot.Series {
  return {
    label,
    stroke: colour,
    paths: () => null,
    points: { show: true, size: 14, width: 3, fill: 'transparent' },
  };
}

/** vLLM's Pareto axes: output tokens/s per user on x, per GPU on y, with `series` over them. */
function paretoOptions(series: uPlot.Series[]) {
  return (theme: Theme) => ({
    scales: { x: { time: false } },
    axes: [themedAxis(theme, { label: PER_USER }), themedAxis(theme, { label: PER_GPU, size: 60 })],
    series: [{ label: PER_USER }, ...series],
  });
}

/** One sweep in vLLM's Pareto terms: every point, the frontier joined, the capacity point ringed. */
export function FrontierPlot({ frontier }: { frontier: Frontier }) {
  const data = useMemo(() => {
    const xs = frontier.all.map((p) => p.perUser);
    const on = new Map(frontier.frontier.map((p) => [p.perUser, p.perGpu]));
    const capacity = frontier.capacity;
    return [
      xs,
      frontier.all.map((p) => p.perGpu),
      xs.map((x) => on.get(x) ?? null),
      xs.map((x) => (capacity && capacity.perUser === x ? capacity.perGpu : null)),
    ] as uPlot.AlignedData;
  }, [frontier]);
  const dots = {
    label: 'points',
    stroke: OTHER_POINTS,
    paths: () => null,
    points: { show: true, size: 6, fill: OTHER_POINTS },
  };
  return (
    <Plot
      label="frontier: output tokens/s per user against per GPU"
      height={300}
      data={data}
      options={paretoOptions([dots, line('frontier', MEASURED_COLOUR), ring('capacity', CAPACITY_COLOUR)])}
    />
  );
}

/** Several sweeps' frontiers, one colour each, each capacity point ringed in its frontier's colour. */
export function FrontierOverlay({ series }: { series: readonly OverlaySeries[] }) {
  const data = useMemo(() => overlayData(series) as uPlot.AlignedData, [series]);
  const colour = (i: number) => PALETTE[i % PALETTE.length];
  return (
    <Plot
      label="frontiers of the picked sweeps"
      height={320}
      data={data}
      deps={[series]}
      options={paretoOptions([
        ...series.map((s, i) => line(s.label, colour(i))),
        ...series.map((s, i) => ring(`capacity of ${s.label}`, colour(i))),
      ])}
    />
  );
}
