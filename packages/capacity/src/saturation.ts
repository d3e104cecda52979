import { percentile, type SweepDimension } from '@teapot/run-definitions';

/** What over-saturation is judged from, per measured request (µs from the run's anchor). */
export interface PointRequest {
  /** The intended send time (open loop); equals startUs in a closed loop. */
  scheduledUs: number;
  startUs: number;
  ttftUs: number | null;
  e2eUs: number | null;
  succeeded: boolean;
  /** Met every target's limit on its own (measure's meetsSlo with requestLimits(slo)). */
  good: boolean;
  /**
   * Still running when the run's measuring window (durationS) ended: its outcome is unknown, so it is
   * neither a failure nor good. It still counts as an arrival: a server falling behind shows there.
   */
  cut?: boolean;
}

export interface Saturation {
  saturated: boolean;
  reason: string | null;
  /** Median TTFT of the last third of requests (by send time) over the middle third's. */
  ttftGrowth: number | null;
  /** Completions per second over arrivals per second, in the window where both are steady. */
  completionRatio: number | null;
  /** Median of (actual - intended send) over the last third, ms: the client could not send on time. */
  sendLagMs: number | null;
}

/** Below this many requests in a third, growth through the run is not judged (noise). */
const MIN_PER_THIRD = 10;
/** A queue that grows through the run: the last third's TTFT this much above the middle third's... */
const TTFT_GROWTH = 1.5;
/** ...and by at least this much: a few ms of batching noise is not a queue. */
const TTFT_GROWTH_MIN_MS = 20;
/** Below this completion ratio (and 3 standard errors of a Poisson count) the server fell behind. */
const COMPLETION_RATIO = 0.9;
/** The client's own queue: sends this late (median, last third) mean arrivals waited for a slot. */
const SEND_LAG_MS = 100;

/**
 * Whether an open-loop point offered more than the endpoint serves. Three signs, any one suffices:
 * TTFT climbs through the run (requests queue: compared last third to middle third, so the ramp-up
 * from an empty server in the first third is not mistaken for a queue); completions fall behind
 * arrivals in the window where both are steady; the client itself could not send on schedule.
 * A closed loop cannot queue without bound (it waits for a slot), so its saturation is judged across
 * points, as a throughput plateau (see the search).
 */
export function saturationOf(input: { dimension: SweepDimension; requests: PointRequest[] }): Saturation {
  const none: Saturation = {
    saturated: false,
    reason: null,
    ttftGrowth: null,
    completionRatio: null,
    sendLagMs: null,
  };
  if (input.dimension !== 'rate') return none;
  const bySend = [...input.requests].sort((a, b) => a.scheduledUs - b.scheduledUs);
  const third = Math.floor(bySend.length / 3);
  const reasons: string[] = [];
  const result = { ...none };

  const ttfts = (part: PointRequest[]) =>
    part.filter((r) => r.succeeded && r.ttftUs !== null).map((r) => (r.ttftUs as number) / 1000);
  const middle = ttfts(bySend.slice(third, 2 * third));
  const last = ttfts(bySend.slice(2 * third));
  if (middle.length >= MIN_PER_THIRD && last.length >= MIN_PER_THIRD) {
    const middleMs = median(middle);
    const lastMs = median(last);
    result.ttftGrowth = middleMs > 0 ? lastMs / middleMs : null;
    if (lastMs >= middleMs * TTFT_GROWTH && lastMs - middleMs >= TTFT_GROWTH_MIN_MS) {
      reasons.push(`TTFT climbed through the run (median ${round(middleMs)} -> ${round(lastMs)} ms)`);
    }
  }

  const ratio = completionRatio(bySend);
  if (ratio) {
    result.completionRatio = ratio.ratio;
    if (ratio.ratio < Math.min(COMPLETION_RATIO, 1 - 3 / Math.sqrt(ratio.completions))) {
      reasons.push(`completions kept ${round(ratio.ratio * 100)}% of the arrival rate`);
    }
  }

  const lastThird = bySend.slice(2 * third);
  if (lastThird.length >= MIN_PER_THIRD) {
    result.sendLagMs = median(lastThird.map((r) => (r.startUs - r.scheduledUs) / 1000));
    if (result.sendLagMs >= SEND_LAG_MS) {
      reasons.push(`sends ran ${round(result.sendLagMs)} ms behind schedule (client in-flight cap)`);
    }
  }
  result.saturated = reasons.length > 0;
  result.reason = reasons.length > 0 ? reasons.join('; ') : null;
  return result;
}

/**
 * Completions per second against arrivals per second over [first send + median E2E, last send]: by
 * then the first requests have had time to finish, and arrivals are still coming, so a server that
 * keeps up completes at the arrival rate.
 */
function completionRatio(bySend: PointRequest[]): { ratio: number; completions: number } | null {
  const ended = bySend.filter((r) => r.succeeded && r.e2eUs !== null);
  if (bySend.length < 3 * MIN_PER_THIRD || ended.length < MIN_PER_THIRD) return null;
  const first = bySend[0].scheduledUs;
  const lastSend = bySend[bySend.length - 1].scheduledUs;
  const from = first + median(ended.map((r) => r.e2eUs as number));
  const span = lastSend - first;
  if (span <= 0 || lastSend - from < 0.3 * span) return null;
  const arrivals = bySend.filter((r) => r.scheduledUs >= from && r.scheduledUs <= lastSend).length;
  const completions = ended.filter((r) => {
    const end = r.startUs + (r.e2eUs as number);
    return end >= from && end <= lastSend;
  }).length;
  if (arrivals < MIN_PER_THIRD || completions < 1) return null;
  return { ratio: completions / arrivals, completions };
}

/** numpy's linear median (the percentile every figure uses). */
function median(values: number[]): number {
  return percentile(Float64Array.from(values).sort(), 0.5);
}

function round(value: number): number {
  return Number(value.toPrecision(3));
}
