import { otavaChangePoints } from './otava';
import { stepStillHolds } from './holds';
import { robustChangePoints } from './robust';
import { labelledSeries, scoreDetections, type SeriesKind } from './synthetic';
import { mulberry32, standardNormal } from '@teapot/random';

const steps = (values: number[]) =>
  robustChangePoints(values)
    .findings.filter((f) => f.kind === 'step')
    .map((f) => f.index);

function heavyTailed(seed: number, length: number, level: (i: number) => number, noise = 0.04): number[] {
  const random = mulberry32(seed);
  return Array.from({ length }, (_, i) => level(i) * Math.exp(noise * standardNormal(random)));
}

describe('robustChangePoints', () => {
  it('finds a clean +20% step that two spikes beside it hide from a t-test, within 2 runs', () => {
    const values = heavyTailed(3, 200, (i) => (i < 120 ? 20 : 24));
    values[118] *= 4;
    values[121] *= 0.3;
    const found = steps(values);
    expect(found).toHaveLength(1);
    expect(Math.abs(found[0] - 120)).toBeLessThanOrEqual(2);
    const [step] = robustChangePoints(values).findings;
    expect(step.magnitude).toBeCloseTo(0.2, 1);
    expect(step.before).toBeCloseTo(20, 0);
    expect(step.pValue).toBeLessThan(1e-6);
  });

  it.each<[number, string]>([
    [
      1189,
      'a 3.3-sigma step in t3 noise with spikes beside it (once taken for a drift over the whole series)',
    ],
    [384, 'two 3.1-sigma steps, up then down, 300 runs apart (once one drift over the first 884 runs)'],
    [339, 'a step whose first candidate is 10 runs off, between two spikes (once placed 4 runs off)'],
  ])('finds every step of labelled series %i within 2 runs, and no drift: %s', (seed) => {
    const series = labelledSeries(seed);
    const { findings } = robustChangePoints(series.values);
    expect(findings.map((f) => f.kind)).toEqual(series.steps.map(() => 'step'));
    findings.forEach((f, i) => expect(Math.abs(f.index - series.steps[i].index)).toBeLessThanOrEqual(2));
  });

  it('finds the steps of series 21 within 2 runs and no drift (once a drift, one misplaced), and 5 runs that sit 5% off', () => {
    // The five runs after its first step happen to sit between the levels on either side of them, 5%
    // from the runs after: a change over the 2% minimum, on five runs, reported as one.
    const series = labelledSeries(21);
    const { findings } = robustChangePoints(series.values);
    expect(findings.every((f) => f.kind === 'step')).toBe(true);
    for (const step of series.steps)
      expect(findings.some((f) => Math.abs(f.index - step.index) <= 2)).toBe(true);
    const extra = findings.filter((f) => series.steps.every((step) => Math.abs(f.index - step.index) > 2));
    expect(extra).toMatchObject([{ index: 107, runsBefore: 5 }]);
  });

  it('finds a persistent 4% step in 1,600 runs of 3% noise, which is 1.3 noise levels, and says what it rests on', () => {
    const values = heavyTailed(21, 1_600, (i) => (i < 700 ? 20 : 20.8), 0.03);
    const { findings } = robustChangePoints(values);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ kind: 'step', runsBefore: 300, runsAfter: 300 });
    expect(Math.abs(findings[0].index - 700)).toBeLessThanOrEqual(5);
    expect(findings[0].magnitude).toBeGreaterThan(0.03);
    expect(findings[0].magnitude).toBeLessThan(0.05);
    // The old rule (a step of at least 2 noise levels) missed it however many runs supported it.
    expect(findings[0].effect).toBeLessThan(2);
  });

  it('finds a +20% step in lognormal noise of sigma 0.12 with 2% of runs spiked 1.5-3x', () => {
    const random = mulberry32(22);
    const values = heavyTailed(23, 400, (i) => (i < 250 ? 20 : 24), 0.12).map((v) =>
      random() < 0.02 ? v * (1.5 + 1.5 * random()) : v,
    );
    const steps = robustChangePoints(values).findings;
    expect(steps.map((f) => f.kind)).toEqual(['step']);
    expect(Math.abs(steps[0].index - 250)).toBeLessThanOrEqual(5);
    expect(steps[0].magnitude).toBeGreaterThan(0.12);
  });

  it('never reports a change under the practical minimum, however plain, and does over a lower one', () => {
    // 1% in 2,000 runs of 1% noise: a rank test puts it beyond doubt (z about 20); it is still under 2%.
    const values = heavyTailed(24, 2_000, (i) => (i < 1_000 ? 20 : 20.2), 0.01);
    expect(robustChangePoints(values).findings).toEqual([]);
    const lower = robustChangePoints(values, { minChange: 0.002 }).findings;
    expect(lower.map((f) => f.kind)).toEqual(['step']);
    expect(Math.abs(lower[0].index - 1_000)).toBeLessThanOrEqual(10);
  });

  it('reports a slow 10% drift over 1,000 runs (2% noise) as one drift, not as steps (Otava cuts it into steps)', () => {
    const values = heavyTailed(5, 1_000, (i) => 20 * (1 + (0.1 * i) / 999), 0.02);
    const { findings } = robustChangePoints(values);
    expect(findings.map((f) => f.kind)).toEqual(['drift']);
    expect(findings[0].magnitude).toBeGreaterThan(0.07);
    expect(findings[0].magnitude).toBeLessThan(0.13);
    expect(otavaChangePoints(values).length).toBeGreaterThan(1);
  });

  it('reports nothing on noise with single-run spikes, nor on a 1% step', () => {
    const spiky = heavyTailed(7, 800, () => 20);
    for (let i = 13; i < 800; i += 97) spiky[i] *= 5;
    expect(robustChangePoints(spiky).findings).toEqual([]);
    expect(robustChangePoints(heavyTailed(8, 800, (i) => (i < 400 ? 20 : 20.2))).findings).toEqual([]);
  });

  it('works in the series unit when a value is not positive', () => {
    const random = mulberry32(11);
    const values = Array.from({ length: 120 }, (_, i) => (i < 60 ? 0 : 1) + 0.1 * standardNormal(random));
    const result = robustChangePoints(values);
    expect(result.scale).toBe('linear');
    expect(result.findings.map((f) => f.index)).toEqual([60]);
  });

  it('refuses non-finite values and bad options, naming them', () => {
    expect(() => robustChangePoints([1, NaN, 2])).toThrow('series[1] is not a finite number');
    expect(() => robustChangePoints([1, 2], { window: 1 })).toThrow('window');
    expect(() => robustChangePoints([1, 2], { minChange: -0.1 })).toThrow('minChange');
    expect(() => robustChangePoints([1, 2], { maxPValue: 0 })).toThrow('maxPValue must be in (0, 1]');
    expect(robustChangePoints([]).findings).toEqual([]);
  });

  // The bench (bench/src/change-points.ts) runs the full evaluation; this is a smaller, faster slice.
  it.each<[SeriesKind, number]>([
    ['steps', 25],
    ['noise', 15],
    ['small-steps', 15],
    ['drift', 15],
  ])('on generated %s series: labelled changes found, nothing spurious', (kind, count) => {
    let truePositives = 0;
    let falsePositives = 0;
    let labels = 0;
    for (let seed = 1; seed <= count; seed++) {
      const series = labelledSeries(seed * 7919, { kind, length: 60 + ((seed * 137) % 540) });
      const score = scoreDetections(series, robustChangePoints(series.values).findings);
      truePositives += score.truePositives;
      falsePositives += score.falsePositives;
      labels += score.steps + score.drifts;
    }
    if (kind === 'noise' || kind === 'small-steps') expect(falsePositives).toBe(0);
    else {
      expect(truePositives).toBeGreaterThanOrEqual(0.9 * labels);
      expect(falsePositives).toBeLessThanOrEqual(0.1 * labels);
    }
  });
});

describe('stepStillHolds', () => {
  it('keeps a reported step while its runs support it, at a weaker bar than a new one, and drops others', () => {
    const values = heavyTailed(31, 308, (i) => (i < 300 ? 20 : 21), 0.03);
    const all = { from: 0, to: values.length };
    // 8 runs into a 5% step in 3% noise: too early for a new step here, enough to keep a reported one.
    expect(robustChangePoints(values).findings).toEqual([]);
    expect(stepStillHolds(values, 300, all)).toBe(true);
    expect(stepStillHolds(values, 150, all)).toBe(false);
    // Under the practical minimum, or at the series' edge, nothing holds.
    expect(stepStillHolds(values, 300, all, { minChange: 0.2 })).toBe(false);
    expect(stepStillHolds(values, 306, all)).toBe(false);
  });
});

describe('labelledSeries', () => {
  it('is reproducible from its seed and labels what it made', () => {
    expect(labelledSeries(42)).toEqual(labelledSeries(42));
    const series = labelledSeries(9, { kind: 'steps', length: 500 });
    expect(series.values).toHaveLength(500);
    expect(series.steps.length).toBeGreaterThan(0);
    for (const step of series.steps) expect(Math.abs(step.size)).toBeGreaterThanOrEqual(3);
  });
});
