import { useMemo } from 'preact/hooks';
import type uPlot from 'uplot';
import {
  formatLoad,
  type Frontier,
  type OverlaySeries,
  overlayData,
  overlayGuides,
  type SloGuide,
  type SloPlotData,
} from '../shape/sweep';
import { drawVerticals, PALETTE, Plot, type Theme, themedAxis } from './plot';

/** The measured latency, the frontier: the first series colour. */
export const MEASURED_COLOUR = '#1c7ed6';
/** An SLO limit: the colour the trend gives change points, since both say "past here is bad". */
export const LIMIT_COLOUR = '#e03131';
/** The capacity found: a colour no other series of these plots takes. */
export const CAPACITY_COLOUR = '#2f9e44';
const OTHER_POINTS = '#868e96';

const PER_USER = 'output tokens/s per user';
const PER_GPU = 'output tokens/s per GPU';

/** The capacity found as a solid line across the plot, labelled at the top. */
function drawCapacityLine(x: number, label: string) {
  return drawVerticals([{ x, label }], { colour: CAPACITY_COLOUR, dash: [], labelsFrom: 'top' });
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

/** Points alone, filled, no line. */
function dots(label: string, colour: string): uPlot.Series {
  return { label, stroke: colour, paths: () => null, points: { show: true, size: 7, fill: colour } };
}

/** Points drawn as rings, no line: by default large (a capacity point). */
function ring(label: string, colour: string, size = 14, width = 3): uPlot.Series {
  return {
    label,
    stroke: colour,
    paths: () => null,
    points: { show: true, size, width, fill: 'transparent' },
  };
}

/** Points that missed the SLO: small hollow rings, so they read apart from filled ones that met it in any colour. */
function hollow(label: string, colour: string): uPlot.Series {
  return ring(label, colour, 9, 2);
}

/** The x scale stretched over the SLO guides too, so a guide far from the points is still drawn. */
function perUserScale(guides: readonly SloGuide[]): uPlot.Scale {
  if (guides.length === 0) return { time: false };
  return {
    time: false,
    range: (_u, min, max) => {
      const lo = Math.min(min, ...guides.map((g) => g.perUser));
      const hi = Math.max(max, ...guides.map((g) => g.perUser));
      const pad = (hi - lo) * 0.05 || 1;
      return [Math.max(0, lo - pad), hi + pad];
    },
  };
}

/** SLO guides as dashed lines labelled at the top, a colour per group (one per overlaid sweep). */
function drawGuides(groups: ReadonlyArray<{ colour: string; guides: readonly SloGuide[] }>) {
  let firstRow = 0;
  return groups.map(({ colour, guides }) => {
    const draw = drawVerticals(
      guides.map((g) => ({ x: g.perUser, label: g.label })),
      { colour, dash: [8, 5], labelsFrom: 'top', firstRow },
    );
    firstRow += guides.length;
    return draw;
  });
}

/** vLLM's Pareto axes: output tokens/s per user on x, per GPU on y, with `series` over them and the SLO guides. */
function paretoOptions(
  series: uPlot.Series[],
  guides: ReadonlyArray<{ colour: string; guides: readonly SloGuide[] }>,
) {
  return (theme: Theme) => ({
    scales: { x: perUserScale(guides.flatMap((g) => g.guides)) },
    hooks: { draw: drawGuides(guides) },
    axes: [themedAxis(theme, { label: PER_USER }), themedAxis(theme, { label: PER_GPU, size: 60 })],
    series: [{ label: PER_USER }, ...series],
  });
}

const JUDGEMENTS = [
  { met: true, series: dots('met the SLO', MEASURED_COLOUR) },
  { met: false, series: hollow('missed the SLO', LIMIT_COLOUR) },
  { met: null, series: dots('points (no SLO)', OTHER_POINTS) },
] as const;

/**
 * One sweep in vLLM's Pareto terms: every point, filled when it met the SLO and hollow when it missed,
 * the frontier joined, the capacity point ringed, the TPOT targets as dashed guides.
 */
export function FrontierPlot({ frontier, guides }: { frontier: Frontier; guides: readonly SloGuide[] }) {
  const { data, series } = useMemo(() => {
    const xs = frontier.all.map((p) => p.perUser);
    const on = new Map(frontier.frontier.map((p) => [p.perUser, p.perGpu]));
    const capacity = frontier.capacity;
    // A judgement with no point gets no column, so the legend lists only what is drawn.
    const judged = JUDGEMENTS.filter((j) => frontier.all.some((p) => p.met === j.met));
    return {
      data: [
        xs,
        ...judged.map((j) => frontier.all.map((p) => (p.met === j.met ? p.perGpu : null))),
        xs.map((x) => on.get(x) ?? null),
        xs.map((x) => (capacity && capacity.perUser === x ? capacity.perGpu : null)),
      ] as uPlot.AlignedData,
      series: [
        ...judged.map((j) => j.series),
        { ...line('frontier', MEASURED_COLOUR), points: { show: false } },
        ring('capacity', CAPACITY_COLOUR),
      ],
    };
  }, [frontier]);
  return (
    <Plot
      label="frontier: output tokens/s per user against per GPU"
      height={300}
      data={data}
      deps={[guides]}
      options={paretoOptions(series, [{ colour: LIMIT_COLOUR, guides }])}
    />
  );
}

/**
 * Several sweeps' frontiers, one colour each: a point that met its sweep's SLO filled, one that missed
 * it hollow, each capacity point ringed, and the SLO guides (labelled by configuration when they differ).
 */
export function FrontierOverlay({ series }: { series: readonly OverlaySeries[] }) {
  const columns = useMemo(() => overlayData(series), [series]);
  const colour = (i: number) => PALETTE[i % PALETTE.length];
  const guides = useMemo(() => {
    const all = overlayGuides(series);
    return [null, ...series.keys()].map((of) => ({
      colour: of === null ? LIMIT_COLOUR : colour(of),
      guides: all.filter((g) => g.of === of),
    }));
  }, [series]);
  // The filled marks of a frontier's line: its points that did not miss (the next columns hold those that did).
  const filled = (i: number) => (): number[] => {
    const [, ...lines] = columns;
    const missed = lines[series.length + i];
    return lines[i].flatMap((value, at) => (value !== null && missed[at] === null ? [at] : []));
  };
  return (
    <Plot
      label="frontiers of the picked sweeps"
      height={320}
      data={columns as uPlot.AlignedData}
      deps={[series]}
      options={paretoOptions(
        [
          ...series.map((s, i) => ({
            ...line(s.label, colour(i)),
            points: { show: true, size: 7, fill: colour(i), filter: filled(i) },
          })),
          ...series.map((s, i) => hollow(`${s.label}: missed its SLO`, colour(i))),
          ...series.map((s, i) => ring(`capacity of ${s.label}`, colour(i))),
        ],
        guides,
      )}
    />
  );
}

/** What a dashed TPOT guide on a frontier says, and what it does not. */
export function GuideHint() {
  return (
    <>
      Dashed: a TPOT target at 1000 / limit tokens/s per user, where a stream decoding at exactly the limit
      would sit. A guide, not the verdict: tokens/s per user counts a stream&apos;s queueing and prefill too,
      and the limit holds at a percentile, not on the mean.
    </>
  );
}
