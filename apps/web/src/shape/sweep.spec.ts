import type { Schemas } from '../api/client';
import {
  costText,
  formatLoad,
  frontierOf,
  overlayData,
  overlayGuides,
  pointOrdinal,
  sloGuides,
  sloPlots,
  stopReasonText,
  sweepLabel,
  targetVerdict,
} from './sweep';

type Point = Schemas['SweepPointDto'];

/** A measured point at `load` streams: TPOT p50 `tpotMs` against a 15 ms limit, and its Pareto axes. */
function point(
  index: number,
  load: number,
  tpotMs: number,
  perUser: number,
  perGpu: number | null,
  onFrontier: boolean,
): Point {
  return {
    index,
    runId: `run-${index}`,
    runStatus: 'succeeded',
    offered: load,
    onFrontier,
    error: null,
    errorClass: null,
    finishedAt: null,
    figures: {
      dimension: 'concurrency',
      load,
      requests: 16,
      succeeded: 16,
      failed: 0,
      achievedRps: 1,
      outputTokensPerS: perUser * load,
      meanInFlight: load,
      targets: [{ metric: 'tpot', percentile: 50, limitMs: 15, valueMs: tpotMs, met: tpotMs <= 15 }],
      goodShare: 1,
      goodputRps: 1,
      met: tpotMs <= 15,
      missed: [],
      saturation: {
        saturated: false,
        reason: null,
        ttftGrowth: null,
        completionRatio: null,
        sendLagMs: null,
      },
      tokensPerSPerUser: perUser,
      tokensPerSPerGpu: perGpu,
      gpus: perGpu === null ? null : 1,
      costPerMillionOutputTokensUsd: null,
    },
  };
}

// Measured out of load order (a search bisects): 1, 8, 4, 2 streams; the 3rd measured (load 2) is dominated.
const POINTS = [
  point(0, 1, 5, 180, 180, true),
  point(1, 8, 22, 40, 320, true),
  point(2, 4, 12, 70, 280, true),
  point(3, 2, 9, 60, 120, false),
];
const unmeasured: Point = { ...point(4, 16, 1, 1, 1, false), figures: null, runStatus: 'running' };

describe('the sweep outcome in words', () => {
  it('says why it stopped, and that it is still measuring when it has not', () => {
    expect(stopReasonText({ stopReason: 'below_lowest', status: 'succeeded' })).toContain('lowest load');
    expect(stopReasonText({ stopReason: 'converged', status: 'succeeded' })).toMatch(/^converged/);
    expect(stopReasonText({ stopReason: null, status: 'running' })).toBe('still measuring');
  });

  it('states a cost only with a price, and never invents one', () => {
    expect(costText({ costPerMillionOutputTokensUsdAtCapacity: 0.41234, capacity: 4 })).toBe(
      '$0.412 per million output tokens',
    );
    expect(costText({ costPerMillionOutputTokensUsdAtCapacity: null, capacity: 4 })).toBe('no price set');
    expect(costText({ costPerMillionOutputTokensUsdAtCapacity: null, capacity: null })).toBe(
      'no capacity, so no cost',
    );
  });

  it('writes loads with their unit, points counted from 1, and a target without a value as neither met nor missed', () => {
    expect(formatLoad(12.3456, 'req/s')).toBe('12.3 req/s');
    expect(formatLoad(null, 'streams')).toBe('–');
    expect(pointOrdinal(2)).toBe('point 3');
    expect(targetVerdict({ valueMs: 20, met: false })).toBe('missed');
    expect(targetVerdict({ valueMs: null, met: false })).toBe('–');
  });
});

describe('sloPlots', () => {
  it("draws each target's value by ascending offered load, with its limit flat across, leaving out unmeasured points", () => {
    const [tpot, ...rest] = sloPlots({
      slo: { targets: [{ metric: 'tpot', percentile: 50, limitMs: 15 }] },
      points: [...POINTS, unmeasured],
    });
    expect(rest).toEqual([]);
    expect(tpot.title).toBe('p50 TPOT');
    expect(tpot.data).toEqual([
      [1, 2, 4, 8],
      [5, 9, 12, 22],
      [15, 15, 15, 15],
    ]);
  });

  it('draws nothing for a sweep without an SLO', () => {
    expect(sloPlots({ slo: null, points: POINTS })).toEqual([]);
  });
});

describe('frontierOf', () => {
  it("keeps the API's frontier in ascending tokens/s per user, every point for the scatter, and the capacity's point", () => {
    const shaped = frontierOf({ capacity: 4, points: [...POINTS, unmeasured] });
    expect(shaped.frontier.map((p) => [p.perUser, p.perGpu])).toEqual([
      [40, 320],
      [70, 280],
      [180, 180],
    ]);
    expect(shaped.all.map((p) => p.load)).toEqual([8, 2, 4, 1]);
    expect(shaped.capacity).toEqual({ perUser: 70, perGpu: 280, load: 4, runId: 'run-2', met: true });
    // TPOT p50 against 15 ms: the 8-stream point (22 ms) missed, the others met.
    expect(shaped.all.map((p) => [p.load, p.met])).toEqual([
      [8, false],
      [2, true],
      [4, true],
      [1, true],
    ]);
  });

  it('falls back to total tokens/s without a GPU count, and marks no capacity when there is none', () => {
    const shaped = frontierOf({ capacity: null, points: [point(0, 2, 5, 50, null, true)] });
    expect(shaped.frontier).toEqual([{ perUser: 50, perGpu: 100, load: 2, runId: 'run-0', met: true }]);
    expect(shaped.capacity).toBeNull();
  });
});

describe('overlayData', () => {
  it("puts several frontiers on the union of their x, each null off its own points, then each one's missed points, then one column per capacity point", () => {
    const a = frontierOf({ capacity: 4, points: POINTS });
    const b = {
      label: 'b',
      frontier: [{ perUser: 70, perGpu: 500, load: 4, runId: 'x', met: null }],
      capacity: null,
      guides: [],
    };
    expect(overlayData([{ label: 'a', guides: [], ...a }, b])).toEqual([
      [40, 70, 180],
      [320, 280, 180],
      [null, 500, null],
      [320, null, null],
      [null, null, null],
      [null, 280, null],
      [null, null, null],
    ]);
  });
});

describe('SLO guides on the frontier', () => {
  const slo = (limitMs: number) => ({
    targets: [
      { metric: 'ttft' as const, percentile: 99 as const, limitMs: 500 },
      { metric: 'tpot' as const, percentile: 99 as const, limitMs },
    ],
  });
  const series = (label: string, limitMs: number) => ({
    label,
    frontier: [],
    capacity: null,
    guides: sloGuides(slo(limitMs)),
  });

  it('puts a TPOT limit of T ms at 1000 / T tokens/s per user, and nothing for other targets or no SLO', () => {
    expect(sloGuides(slo(30))).toEqual([{ perUser: 1000 / 30, label: 'TPOT p99 ≤ 30 ms ≈ 33 tok/s/user' }]);
    expect(sloGuides({ targets: [{ metric: 'itl', percentile: 50, limitMs: 20 }] })).toEqual([]);
    expect(sloGuides(null)).toEqual([]);
  });

  it('draws a guide shared by every overlaid sweep once, and labels each by configuration when they differ', () => {
    expect(overlayGuides([series('v1 W:fp16', 30), series('v2 W:fp8', 30)])).toEqual([
      { perUser: 1000 / 30, label: 'TPOT p99 ≤ 30 ms ≈ 33 tok/s/user', of: null },
    ]);
    expect(overlayGuides([series('v1 W:fp16', 30), series('v2 W:fp8', 40)])).toEqual([
      { perUser: 1000 / 30, label: 'v1 W:fp16: TPOT p99 ≤ 30 ms ≈ 33 tok/s/user', of: 0 },
      { perUser: 1000 / 40, label: 'v2 W:fp8: TPOT p99 ≤ 40 ms ≈ 25 tok/s/user', of: 1 },
    ]);
  });
});

describe('sweepLabel', () => {
  it('names the configuration version and weight quantisation the sweep measured', () => {
    const configs = [
      { id: 'c1', version: 1, weightQuant: 'fp16' },
      { id: 'c2', version: 2, weightQuant: 'fp8' },
    ];
    expect(sweepLabel({ configId: 'c2', queuedAt: '2026-12-05T10:00:00Z' }, configs)).toMatch(/^v2 W:fp8 · /);
    expect(sweepLabel({ configId: null, queuedAt: '2026-12-05T10:00:00Z' }, configs)).toMatch(
      /^unknown configuration · /,
    );
  });
});
