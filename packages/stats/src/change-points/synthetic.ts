import { mulberry32, standardNormal, type Random } from '@teapot/random';

/**
 * Seeded, labelled latency-like series (e.g. a run series of P99 ITL) to measure change-point
 * detectors: a base level times multiplicative noise (lognormal, or Student-t with 3 degrees of
 * freedom in logarithms for heavier tails), single-run spikes, and per kind real steps, steps under
 * the 2% that matters (0.3-1.5%), or a linear drift. The noise level `noise` is the standard deviation of the logarithm's
 * noise (for t3 noise, the normal sigma with the same median absolute deviation); step sizes and
 * drift totals are multiples of it.
 */
export type SeriesKind = 'noise' | 'steps' | 'small-steps' | 'drift';
export const SERIES_KINDS: readonly SeriesKind[] = ['noise', 'steps', 'small-steps', 'drift'];

export interface LabelledSeries {
  kind: SeriesKind;
  values: number[];
  noise: number;
  tails: 'lognormal' | 't3';
  /** Real steps (|size| >= 3 noise levels): a detector should find each within 2 runs. */
  steps: Array<{ index: number; size: number }>;
  /** Steps under the practical minimum (0.3-1.5% of the level): a detector should report nothing for them. */
  smallSteps: Array<{ index: number; size: number }>;
  /** A linear drift over [from, to): a finding, but not a step. */
  drifts: Array<{ from: number; to: number; total: number }>;
  spikes: number[];
}

export interface SeriesShape {
  kind?: SeriesKind;
  length?: number;
}

const MIN_LENGTH = 60;
const MAX_LENGTH = 2_000;
// The median of |T| for Student's t with 3 degrees of freedom, and of |Z| for a standard normal.
const T3_MEDIAN_ABS = 0.7648923;
const NORMAL_MEDIAN_ABS = 0.6744898;

export function labelledSeries(seed: number, shape: SeriesShape = {}): LabelledSeries {
  const random = mulberry32(seed);
  const kind = shape.kind ?? SERIES_KINDS[Math.floor(random() * SERIES_KINDS.length)];
  // Log-uniform lengths: short series are as common as long ones.
  const length =
    shape.length ?? Math.round(MIN_LENGTH * Math.exp(random() * Math.log(MAX_LENGTH / MIN_LENGTH)));
  const noise = 0.02 + random() * 0.08;
  const tails = random() < 0.5 ? 'lognormal' : 't3';
  const base = 10 + random() * 40;
  const offset = new Float64Array(length);
  const series: LabelledSeries = {
    kind,
    values: [],
    noise,
    tails,
    steps: [],
    smallSteps: [],
    drifts: [],
    spikes: [],
  };

  const place = (count: number, gap: number): number[] => {
    const chosen: number[] = [];
    for (let tries = 0; chosen.length < count && tries < 200; tries++) {
      const at = 10 + Math.floor(random() * (length - 20));
      if (chosen.every((c) => Math.abs(c - at) >= gap)) chosen.push(at);
    }
    return chosen.sort((a, b) => a - b);
  };
  const addStep = (index: number, size: number) => {
    for (let i = index; i < length; i++) offset[i] += size * noise;
  };
  if (kind === 'steps') {
    const count = 1 + Math.floor(random() * Math.min(4, Math.floor((length - 20) / 40)));
    for (const index of place(count, 20)) {
      const size = (3 + random() * 5) * (random() < 0.5 ? -1 : 1);
      addStep(index, size);
      series.steps.push({ index, size });
      // Otava's failure on latency series: spikes right beside a step.
      if (random() < 0.5) series.spikes.push(index - 2, index + 2);
    }
  } else if (kind === 'small-steps') {
    // Steps of 0.3-1.5%, under the 2% a latency change must reach to matter: plain after hundreds of
    // runs, and still nothing to report.
    for (const index of place(1 + Math.floor(random() * 2), 20)) {
      const size = (Math.log1p(0.003 + random() * 0.012) / noise) * (random() < 0.5 ? -1 : 1);
      addStep(index, size);
      series.smallSteps.push({ index, size });
    }
  } else if (kind === 'drift') {
    const span = Math.max(30, Math.floor(length * (0.3 + random() * 0.4)));
    const from = Math.floor(random() * (length - span));
    const total = (5 + random() * 7) * (random() < 0.5 ? -1 : 1);
    for (let i = from; i < length; i++) offset[i] += (Math.min(i - from, span) / span) * total * noise;
    series.drifts.push({ from, to: from + span, total });
  }
  for (let i = 0; i < length; i++) if (random() < 0.02) series.spikes.push(i);
  series.spikes = [...new Set(series.spikes.filter((i) => i >= 0 && i < length))].sort((a, b) => a - b);
  const spiky = new Set(series.spikes);
  for (let i = 0; i < length; i++) {
    const draw =
      tails === 'lognormal'
        ? standardNormal(random)
        : studentT3(random) * (NORMAL_MEDIAN_ABS / T3_MEDIAN_ABS);
    let value = base * Math.exp(offset[i] + draw * noise);
    if (spiky.has(i)) value *= 1.5 + random() * 2.5;
    series.values.push(value);
  }
  return series;
}

function studentT3(random: Random): number {
  // T = Z / sqrt(V / 3) with V ~ chi-square(3), a sum of three squared standard normals.
  let v = 0;
  for (let i = 0; i < 3; i++) v += standardNormal(random) ** 2;
  return standardNormal(random) / Math.sqrt(v / 3);
}

/** What a detector reported, as the score sees it: a step at `index`, or a drift over [index, end). */
export interface Detection {
  kind: 'step' | 'drift';
  index: number;
  end: number;
}

export interface DetectionScore {
  /** Detections matching a label: a step within `tolerance` runs of a real step, a drift overlapping a drift. */
  truePositives: number;
  /** Everything else reported: spurious steps, steps inside a drift, steps below the noise, misplaced steps. */
  falsePositives: number;
  steps: number;
  stepsFound: number;
  drifts: number;
  driftsFound: number;
}

/** Scores one series' detections against its labels; each label matches at most one detection. */
export function scoreDetections(
  series: LabelledSeries,
  detections: Detection[],
  tolerance = 2,
): DetectionScore {
  const used = new Set<number>();
  let stepsFound = 0;
  for (const step of series.steps) {
    let match = -1;
    detections.forEach((d, i) => {
      if (d.kind !== 'step' || used.has(i) || Math.abs(d.index - step.index) > tolerance) return;
      if (match < 0 || Math.abs(d.index - step.index) < Math.abs(detections[match].index - step.index))
        match = i;
    });
    if (match >= 0) {
      used.add(match);
      stepsFound++;
    }
  }
  let driftsFound = 0;
  for (const drift of series.drifts) {
    const match = detections.findIndex(
      (d, i) => d.kind === 'drift' && !used.has(i) && d.index < drift.to && d.end > drift.from,
    );
    if (match >= 0) {
      used.add(match);
      driftsFound++;
    }
  }
  return {
    truePositives: used.size,
    falsePositives: detections.length - used.size,
    steps: series.steps.length,
    stepsFound,
    drifts: series.drifts.length,
    driftsFound,
  };
}
