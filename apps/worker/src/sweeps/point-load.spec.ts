import { parseProfileSnapshot, snapshotOf } from '@teapot/contracts';
import { sampleSnapshot } from '@teapot/contracts/testing';
import { pointLoad, pointSnapshot } from './point-load';

describe('pointLoad', () => {
  it('makes a rate point open-loop at the rate, Poisson when the profile is closed-loop', () => {
    expect(pointLoad('rate', 2.5, { kind: 'closed', concurrency: 4 })).toEqual({
      kind: 'open',
      ratePerS: 2.5,
      arrival: 'poisson',
    });
  });

  it("keeps an open-loop profile's arrival process, burstiness and in-flight cap at the point's rate", () => {
    expect(
      pointLoad('rate', 7, {
        kind: 'open',
        ratePerS: 1,
        arrival: 'gamma',
        burstiness: 0.5,
        maxConcurrency: 64,
      }),
    ).toEqual({ kind: 'open', ratePerS: 7, arrival: 'gamma', burstiness: 0.5, maxConcurrency: 64 });
  });

  it('makes a concurrency point a closed loop of whole streams, whatever the profile', () => {
    expect(pointLoad('concurrency', 16, { kind: 'open', ratePerS: 1, arrival: 'poisson' })).toEqual({
      kind: 'closed',
      concurrency: 16,
    });
    expect(pointLoad('concurrency', 0.2, { kind: 'closed', concurrency: 3 })).toEqual({
      kind: 'closed',
      concurrency: 1,
    });
  });
});

describe('pointSnapshot', () => {
  it("is the sweep's snapshot with only the load replaced, and parses as a run's snapshot", () => {
    const stored = JSON.parse(
      JSON.stringify(
        snapshotOf(sampleSnapshot({ sweep: { kind: 'points', dimension: 'rate', points: [1, 2] } })),
      ),
    ) as Record<string, unknown>;
    const point = pointSnapshot(stored, parseProfileSnapshot(stored), 'rate', 2);
    const { load, ...rest } = point;
    const { load: _profileLoad, ...before } = stored;
    expect(rest).toEqual(before);
    expect(load).toEqual({ kind: 'open', ratePerS: 2, arrival: 'poisson' });
    expect(parseProfileSnapshot(point).load).toEqual(load);
  });
});
