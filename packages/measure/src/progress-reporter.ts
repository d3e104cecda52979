import { objectArray } from './speed/object-array';
import type { Progress } from './types';

/** Live tokens/s is measured over about this window. */
const PROGRESS_WINDOW_MS = 1000;

/** What a progress report reads from the run. */
export interface ProgressCounts {
  completed: number;
  failed: number;
  inFlight: number;
  total: number | null;
  outputTokens: number;
}

/** Turns a run's live counts into Progress reports; a listener that throws ends the run with its error. */
export class ProgressReporter {
  private readonly samples: Array<{ atUs: number; tokens: number }> = objectArray();
  /** What the listener threw, if it did: the run ends with it. */
  error: unknown = null;

  constructor(private readonly listener: (progress: Progress) => void) {}

  report(nowUs: number, counts: ProgressCounts): void {
    if (this.error !== null) return;
    const tokens = counts.outputTokens;
    const samples = this.samples;
    samples.push({ atUs: nowUs, tokens });
    while (samples.length > 2 && nowUs - samples[1].atUs >= PROGRESS_WINDOW_MS * 1000) samples.shift();
    const oldest = samples[0];
    const spanS = (nowUs - oldest.atUs) / 1e6;
    try {
      this.listener({
        completed: counts.completed,
        failed: counts.failed,
        inFlight: counts.inFlight,
        total: counts.total,
        outputTokens: tokens,
        elapsedS: nowUs / 1e6,
        tokensPerS: spanS > 0 ? (tokens - oldest.tokens) / spanS : 0,
      });
    } catch (err) {
      this.error = err;
    }
  }
}
