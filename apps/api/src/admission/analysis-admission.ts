import { performance } from 'node:perf_hooks';

export interface AdmissionLimits {
  /** Heavy analyses running at once in this process. */
  perProcess: number;
  /** Heavy analyses running at once for one API key. */
  perKey: number;
}

export type Admission =
  | { admitted: true; release(): void }
  | { admitted: false; status: 429 | 503; retryAfterS: number; message: string };

// Weight of the latest analysis in the typical duration behind Retry-After.
const DURATION_WEIGHT = 0.2;

/**
 * How many heavy analyses may run at once, per process and per API key: the rest are refused at
 * once rather than queued, since a queued analysis would hold its client (and its memory) while
 * the ones ahead of it compute, and a client that gave up would still be served. A refusal says
 * when to try again: the typical duration of recent analyses, in whole seconds (at least 1).
 */
export class AnalysisAdmission {
  private running = 0;
  private readonly byKey = new Map<string, number>();
  private typicalMs = 1_000;

  constructor(readonly limits: AdmissionLimits) {}

  /** Admits one analysis for `key`, or says why not; an admitted one must be released once it ends. */
  admit(key: string): Admission {
    const mine = this.byKey.get(key) ?? 0;
    if (mine >= this.limits.perKey) {
      return this.refusal(
        429,
        `This API key already runs ${mine} heavy analyses, its limit (TEAPOT_ANALYSIS_CONCURRENCY_PER_KEY)`,
      );
    }
    if (this.running >= this.limits.perProcess) {
      return this.refusal(
        503,
        `The API already runs ${this.running} heavy analyses, its limit (TEAPOT_ANALYSIS_CONCURRENCY)`,
      );
    }
    this.running += 1;
    this.byKey.set(key, mine + 1);
    const start = performance.now();
    let released = false;
    return {
      admitted: true,
      release: () => {
        if (released) return;
        released = true;
        this.running -= 1;
        const left = (this.byKey.get(key) ?? 1) - 1;
        if (left > 0) this.byKey.set(key, left);
        else this.byKey.delete(key);
        this.typicalMs += DURATION_WEIGHT * (performance.now() - start - this.typicalMs);
      },
    };
  }

  /** Analyses running now. */
  get active(): number {
    return this.running;
  }

  private refusal(status: 429 | 503, what: string): Admission {
    const retryAfterS = Math.max(1, Math.ceil(this.typicalMs / 1000));
    return { admitted: false, status, retryAfterS, message: `${what}; try again in ${retryAfterS} s.` };
  }
}
