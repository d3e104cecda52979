import type { SweepView } from './api-client';
import { capacityProfileOf, progressOf, renderCapacities } from './capacity-demo';
import type { RegisteredEndpoint } from './demo';

const endpoint = (quant: 'fp16' | 'fp8') =>
  ({ quant, name: `llama-8b-h100-${quant}`, endpointId: quant, profileId: quant }) as RegisteredEndpoint;

function sweep(
  capacity: number | null,
  cost: number | null,
  points: Array<[number, boolean | null]>,
): SweepView {
  return {
    id: 's',
    status: 'succeeded',
    stopReason: capacity === null ? 'below_lowest' : 'converged',
    capacity,
    unit: 'req/s',
    bracket: { passed: capacity, failed: capacity === null ? 4 : capacity * 1.08 },
    costPerMillionOutputTokensUsdAtCapacity: cost,
    error: null,
    points: points.map(([offered, met], index) => ({
      index,
      offered,
      runStatus: met === null ? 'running' : 'succeeded',
      figures: met === null ? null : { met },
    })),
  };
}

describe('the capacity demo', () => {
  it('prints each capacity with its bracket and cost, and FP8 over FP16', () => {
    const text = renderCapacities(
      [endpoint('fp16'), endpoint('fp8')],
      [sweep(66.2, 0.11, [[4, true]]), sweep(117, 0.064, [[4, true]])],
    );
    const rows = text.trimEnd().split('\n');
    expect(rows[2]).toMatch(/^llama-8b-h100-fp16\s+66\.2 req\/s\s+66\.2 - 71\.5\s+1\s+converged\s+\$0\.110$/);
    expect(rows[3]).toMatch(/^llama-8b-h100-fp8\s+117 req\/s\s+117 - 126\s+1\s+converged\s+\$0\.064$/);
    expect(rows[4]).toMatch(/^FP8 \/ FP16\s+1\.77x\s+0\.58x$/);
  });

  it('says "below lowest" and "no price set" rather than a number it does not have', () => {
    const text = renderCapacities(
      [endpoint('fp16'), endpoint('fp8')],
      [sweep(null, null, []), sweep(50, null, [])],
    );
    expect(text).toContain('below lowest');
    expect(text).toContain('no price set');
    expect(text.trimEnd().split('\n').at(-1)).toMatch(/^FP8 \/ FP16\s+-\s+-$/);
  });

  it('reports progress by measured points', () => {
    expect(progressOf(sweep(10, null, []))).toBe('queued');
    expect(progressOf(sweep(10, null, [[4, null]]))).toBe('measuring the first point');
    expect(
      progressOf(
        sweep(10, null, [
          [4, true],
          [16, false],
          [11, null],
        ]),
      ),
    ).toBe('2 points, last 16.0 req/s missed');
  });

  it('asks for an unscheduled capacity search at the interactive limits', () => {
    expect(capacityProfileOf()).toMatchObject({
      scheduleIntervalS: null,
      scheduleCron: null,
      sweep: { kind: 'capacity', dimension: 'rate', slo: { preset: 'mlperf-llama3.1-8b-interactive' } },
    });
  });
});
