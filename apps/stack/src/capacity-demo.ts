import type { SweepView, TeapotApiClient } from './api-client';
import { profileOf, type RegisteredEndpoint } from './demo';
import { StackError, StackInterrupted } from './session';
import { pause } from './start-services';

export const CAPACITY_PROFILE_NAME = 'capacity-mlperf-interactive';
const PRESET = 'mlperf-llama3.1-8b-interactive';
const POLL_MS = 1_000;

/**
 * A capacity search at MLPerf's llama3.1-8b interactive limits (P99 TTFT 500 ms, P99 TPOT 30 ms):
 * Poisson arrivals for 5 s a point, the chat workload of the scheduled profile. Unscheduled: the demo
 * starts it once (POST /sweeps).
 */
export function capacityProfileOf(): Record<string, unknown> {
  return {
    ...profileOf(0),
    name: CAPACITY_PROFILE_NAME,
    load: { kind: 'open', ratePerS: 1, arrival: 'poisson' },
    requestCount: null,
    durationS: 5,
    scheduleIntervalS: null,
    // To 10% in at most 8 points: the demo stays a few minutes (a scheduled search would use the 5% default).
    sweep: {
      kind: 'capacity',
      dimension: 'rate',
      slo: { preset: PRESET },
      lowest: 4,
      highest: 512,
      tolerance: 0.1,
      maxPoints: 8,
    },
  };
}

/** The capacity profile of an endpoint, created or brought back to the demo's definition. */
export async function registerCapacityProfile(api: TeapotApiClient, endpointId: string): Promise<string> {
  const body = capacityProfileOf();
  const existing = await api.findProfile(endpointId, CAPACITY_PROFILE_NAME);
  if (!existing) return (await api.createProfile({ ...body, endpointId })).id;
  return (await api.updateProfile(existing.id, body)).id;
}

/** Starts a capacity search of each endpoint and polls them until both end, a line a measured point. */
export async function measureCapacities(
  api: TeapotApiClient,
  registered: RegisteredEndpoint[],
  say: (text?: string) => void,
  stop: AbortSignal,
): Promise<SweepView[]> {
  const profiles = await Promise.all(
    registered.map((endpoint) => registerCapacityProfile(api, endpoint.endpointId)),
  );
  let sweeps = await Promise.all(profiles.map((profileId) => api.startSweep(profileId)));
  let last = '';
  while (!stop.aborted) {
    sweeps = await Promise.all(sweeps.map((sweep) => api.sweep(sweep.id)));
    const line = `  points: ${sweeps.map((sweep, i) => `${registered[i].quant} ${progressOf(sweep)}`).join('   ')}`;
    if (line !== last) say(line);
    last = line;
    if (sweeps.every((sweep) => sweep.status !== 'queued' && sweep.status !== 'running')) break;
    await pause(POLL_MS);
  }
  if (stop.aborted) throw new StackInterrupted('stopped waiting for the capacity searches');
  const failed = sweeps.find((sweep) => sweep.status !== 'succeeded');
  if (failed)
    throw new StackError(
      `The capacity search ${failed.id} ${failed.status}: ${failed.error ?? 'no reason given'}`,
    );
  return sweeps;
}

/** "3 points, last 48 req/s met". */
export function progressOf(sweep: SweepView): string {
  const measured = sweep.points.filter((point) => point.figures !== null);
  const lastPoint = measured.at(-1);
  if (!lastPoint) return sweep.points.length > 0 ? 'measuring the first point' : 'queued';
  const verdict = lastPoint.figures?.met ? 'met' : 'missed';
  return `${measured.length} point${measured.length === 1 ? '' : 's'}, last ${formatLoad(lastPoint.offered)} ${sweep.unit} ${verdict}`;
}

/** Both capacities with their bracket, points and cost, and FP8 over FP16. */
export function renderCapacities(registered: RegisteredEndpoint[], sweeps: SweepView[]): string {
  const header = ['endpoint', 'capacity', 'bracket', 'points', 'stopped', 'USD / M output tokens'];
  const rows = sweeps.map((sweep, i) => [
    registered[i].name,
    sweep.capacity === null ? 'below lowest' : `${formatLoad(sweep.capacity)} ${sweep.unit}`,
    `${formatLoad(sweep.bracket.passed)} - ${formatLoad(sweep.bracket.failed)}`,
    String(sweep.points.length),
    sweep.stopReason ?? '-',
    sweep.costPerMillionOutputTokensUsdAtCapacity === null
      ? 'no price set'
      : `$${sweep.costPerMillionOutputTokensUsdAtCapacity.toFixed(3)}`,
  ]);
  const [fp16, fp8] = sweeps;
  const ratio = (a: number | null, b: number | null) =>
    a === null || b === null || b === 0 ? '-' : `${(a / b).toFixed(2)}x`;
  rows.push([
    'FP8 / FP16',
    ratio(fp8.capacity, fp16.capacity),
    '',
    '',
    '',
    ratio(fp8.costPerMillionOutputTokensUsdAtCapacity, fp16.costPerMillionOutputTokensUsdAtCapacity),
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((cells) => cells[column].length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) =>
        column === 0 || column === 4 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]),
      )
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n') + '\n';
}

function formatLoad(value: number | null): string {
  if (value === null) return '-';
  return value >= 100 ? value.toFixed(0) : value.toPrecision(3);
}
