import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';

/** Series colours that read on both the light and the dark background. */
export const PALETTE = [
  '#e8590c',
  '#1c7ed6',
  '#2f9e44',
  '#ae3ec9',
  '#f08c00',
  '#0c8599',
  '#e64980',
  '#5c940d',
];

export interface Theme {
  text: string;
  grid: string;
}

function currentTheme(): Theme {
  const style = getComputedStyle(document.documentElement);
  return { text: style.getPropertyValue('--muted').trim(), grid: style.getPropertyValue('--grid').trim() };
}

/** Follows the dark-mode preference while the page is open. */
function useTheme(): Theme {
  const [theme, setTheme] = useState(currentTheme);
  useEffect(() => {
    const query = matchMedia('(prefers-color-scheme: dark)');
    const update = () => setTheme(currentTheme());
    query.addEventListener('change', update);
    return () => query.removeEventListener('change', update);
  }, []);
  return theme;
}

/** Axis colours from the theme, on top of what the caller sets. */
export function themedAxis(theme: Theme, axis: uPlot.Axis = {}): uPlot.Axis {
  return {
    stroke: theme.text,
    grid: { stroke: theme.grid, width: 1 },
    ticks: { stroke: theme.grid, width: 1 },
    ...axis,
  };
}

export interface PlotProps {
  data: uPlot.AlignedData;
  options: (theme: Theme) => Omit<uPlot.Options, 'width' | 'height'>;
  height: number;
  /** Accessible name of the plot. */
  label: string;
  /** Redraw from scratch when any of these change (the data is compared by identity already). */
  deps?: unknown[];
}

/** A uPlot chart that fills its container's width and follows the theme. */
export function Plot({ data, options, height, label, deps = [] }: PlotProps) {
  const container = useRef<HTMLDivElement>(null);
  const theme = useTheme();
  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const chosen = options(theme);
    // `data-drawn` says the canvas holds this data, so a test (or a person's script) can wait for the draw.
    const drawn = () => element.setAttribute('data-drawn', 'true');
    const hooks = { ...chosen.hooks, draw: [...(chosen.hooks?.draw ?? []), drawn] };
    const plot = new uPlot({ ...chosen, hooks, width: element.clientWidth || 300, height }, data, element);
    const observer = new ResizeObserver(() => plot.setSize({ width: element.clientWidth, height }));
    observer.observe(element);
    return () => {
      observer.disconnect();
      element.removeAttribute('data-drawn');
      plot.destroy();
    };
  }, [data, theme, height, ...deps]);
  return <div class="plot" ref={container} role="img" aria-label={label} />;
}

export interface RunTimePlotProps extends Pick<PlotProps, 'data' | 'height' | 'label'> {
  /** The y axes, left first (themed here). */
  axes: uPlot.Axis[];
  /** One per column of `data` after the first (the seconds). */
  series: uPlot.Series[];
  /** Scales besides x, for a second y axis. */
  scales?: uPlot.Scales;
}

/** A plot over one run: x is seconds from the run's start, a number rather than a date. */
export function RunTimePlot({ data, height, label, axes, series, scales = {} }: RunTimePlotProps) {
  return (
    <Plot
      label={label}
      height={height}
      data={data}
      options={(theme) => ({
        scales: { x: { time: false }, ...scales },
        axes: [
          themedAxis(theme, { label: 's from the run start' }),
          ...axes.map((axis) => themedAxis(theme, axis)),
        ],
        series: [{ label: 's' }, ...series],
      })}
    />
  );
}

export interface VerticalStyle {
  colour: string;
  dash: number[];
  /** Labels from the top of the plotting area, below a change point's triangle (deployments), or from its bottom (change points). */
  labelsFrom: 'top' | 'bottom';
  /** Anything drawn at the line besides it and its label (a change point's triangle or band). */
  decorate?: (u: uPlot, x: number, index: number) => void;
  /** The label row of the first marker, when other markers of the plot took the rows before. */
  firstRow?: number;
}

/**
 * Draws each marker as a vertical line over the plotting area with its label beside it; labels step
 * by three rows so neighbouring markers stay readable.
 */
export function drawVerticals(markers: ReadonlyArray<{ x: number; label: string }>, style: VerticalStyle) {
  return (u: uPlot) => {
    const { ctx, bbox } = u;
    const ratio = devicePixelRatio || 1;
    ctx.save();
    ctx.strokeStyle = style.colour;
    ctx.fillStyle = style.colour;
    ctx.lineWidth = 2 * ratio;
    ctx.font = `${11 * ratio}px system-ui, sans-serif`;
    markers.forEach((marker, i) => {
      const x = u.valToPos(marker.x, 'x', true);
      if (x < bbox.left || x > bbox.left + bbox.width) return;
      style.decorate?.(u, x, i);
      ctx.setLineDash(style.dash.map((length) => length * ratio));
      ctx.beginPath();
      ctx.moveTo(x, bbox.top);
      ctx.lineTo(x, bbox.top + bbox.height);
      ctx.stroke();
      const right = x + 4 * ratio + ctx.measureText(marker.label).width < bbox.left + bbox.width;
      ctx.textAlign = right ? 'left' : 'right';
      const row = ((i + (style.firstRow ?? 0)) % 3) * 14;
      const y =
        style.labelsFrom === 'top'
          ? bbox.top + (24 + row) * ratio
          : bbox.top + bbox.height - (6 + row) * ratio;
      ctx.fillText(marker.label, x + (right ? 4 : -4) * ratio, y);
    });
    ctx.restore();
  };
}
