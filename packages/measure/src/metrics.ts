import type { TokenizerIdentity } from '@teapot/tokenizer';
import { PromptCounts } from './prompt-counts';
import { scheduleSummary } from './schedule-metrics';
import { percentileSummary } from './stats';
import type { ErrorClass, RequestMetrics, RequestRecord, RunSummary, Slo, TokenCountSource } from './types';

/**
 * Per-request metrics derived from the raw record, in microseconds; null where undefined.
 * A token chunk is a chunk with chunkTokens > 0 (only content, reasoning and tool-call chunks carry
 * tokens; role-only, empty and usage-only chunks never do).
 */
export function requestMetrics(record: RequestRecord): RequestMetrics {
  const offsets = record.chunkOffsetsUs;
  const tokens = record.chunkTokens;
  let first = -1;
  let last = -1;
  let tokenChunks = 0;
  let timedTokens = 0;
  let itlCount = 0;
  for (let k = 0; k < tokens.length; k++) {
    const m = tokens[k];
    if (m === 0) continue;
    if (first === -1) first = k;
    else itlCount += m;
    last = k;
    tokenChunks++;
    timedTokens += m;
  }
  if (first === -1) {
    return {
      ttftUs: null,
      e2eUs: null,
      tpotUs: null,
      itlUs: new Float64Array(0),
      interChunkUs: new Float64Array(0),
      timedTokens: 0,
    };
  }
  const itlUs = new Float64Array(itlCount);
  const interChunkUs = new Float64Array(tokenChunks - 1);
  let previous = offsets[first];
  let itlAt = 0;
  let gapAt = 0;
  for (let k = first + 1; k <= last; k++) {
    const m = tokens[k];
    if (m === 0) continue;
    const gap = offsets[k] - previous;
    interChunkUs[gapAt++] = gap;
    itlUs.fill(gap / m, itlAt, itlAt + m);
    itlAt += m;
    previous = offsets[k];
  }
  return {
    ttftUs: offsets[first],
    e2eUs: offsets[last],
    tpotUs: timedTokens >= 2 ? (offsets[last] - offsets[first]) / (timedTokens - 1) : null,
    itlUs,
    interChunkUs,
    timedTokens,
  };
}

function sloIsSet(slo: Slo | undefined): slo is Slo {
  return (
    slo !== undefined &&
    (slo.ttftMs !== undefined ||
      slo.tpotMs !== undefined ||
      slo.itlMs !== undefined ||
      slo.e2eMs !== undefined)
  );
}

/**
 * Whether a successful request met every SLO that is set. TTFT and E2E need a first token; TPOT and ITL
 * hold vacuously for a response too short to have them (one token: no gaps to be slow).
 */
export function meetsSlo(metrics: RequestMetrics, slo: Slo): boolean {
  const usPerMs = 1000;
  if (slo.ttftMs !== undefined && (metrics.ttftUs === null || metrics.ttftUs > slo.ttftMs * usPerMs))
    return false;
  if (slo.e2eMs !== undefined && (metrics.e2eUs === null || metrics.e2eUs > slo.e2eMs * usPerMs))
    return false;
  if (slo.tpotMs !== undefined && metrics.tpotUs !== null && metrics.tpotUs > slo.tpotMs * usPerMs)
    return false;
  if (slo.itlMs !== undefined) {
    const limit = slo.itlMs * usPerMs;
    for (let i = 0; i < metrics.itlUs.length; i++) if (metrics.itlUs[i] > limit) return false;
  }
  return true;
}

/** The measured window when the caller does not give one: first request start -> last arrival. */
function spanOfRequestsUs(measured: RequestRecord[]): number {
  let start = Infinity;
  let end = -Infinity;
  for (const r of measured) {
    start = Math.min(start, r.startUs);
    const n = r.chunkOffsetsUs.length;
    end = Math.max(end, r.startUs + (n > 0 ? r.chunkOffsetsUs[n - 1] : (r.ttfbUs ?? 0)));
  }
  return end > start ? end - start : 0;
}

/**
 * Run summary derived from raw records only. Warm-up requests are excluded from everything but their
 * count; latency metrics use successful requests only; failed requests are counted by class;
 * incomplete requests (cut off at the end of a duration-bounded or aborted run) only by number.
 * `durationUs` is the measured wall time for the rates (runBenchmark passes it); without it, the span
 * from the first measured start to the last measured arrival is used. `openLoop`: the requests had
 * scheduled send times, so the summary adds send lateness and TTFT/E2E from the schedule.
 */
export function summarize(
  requests: RequestRecord[],
  opts: { slo?: Slo; durationUs?: number; tokenizer?: TokenizerIdentity | null; openLoop?: boolean } = {},
): RunSummary {
  const measured = requests.filter((r) => !r.warmup);
  const succeeded = measured.filter((r) => r.outcome === 'ok');
  const errorsByClass: Partial<Record<ErrorClass, number>> = {};
  const tokenSources: Partial<Record<TokenCountSource, number>> = {};
  let failed = 0;
  let incomplete = 0;
  for (const r of measured) {
    if (r.outcome === 'incomplete') incomplete++;
    if (r.outcome !== 'error') continue;
    failed++;
    const kind = r.error?.kind ?? 'malformed_stream';
    errorsByClass[kind] = (errorsByClass[kind] ?? 0) + 1;
  }

  const perRequest = succeeded.map(requestMetrics);
  const ttft: number[] = [];
  const ttfb: number[] = [];
  const tpot: number[] = [];
  const e2e: number[] = [];
  let itlCount = 0;
  let gapCount = 0;
  for (const m of perRequest) {
    itlCount += m.itlUs.length;
    gapCount += m.interChunkUs.length;
  }
  const itl = new Float64Array(itlCount);
  const interChunk = new Float64Array(gapCount);
  let itlAt = 0;
  let gapAt = 0;
  let outputTokens = 0;
  const prompts = new PromptCounts(opts.tokenizer ?? null);
  let good = 0;
  const slo = sloIsSet(opts.slo) ? opts.slo : undefined;
  succeeded.forEach((r, i) => {
    const m = perRequest[i];
    if (m.ttftUs !== null) ttft.push(m.ttftUs / 1000);
    if (r.ttfbUs !== null) ttfb.push(r.ttfbUs / 1000);
    if (m.tpotUs !== null) tpot.push(m.tpotUs / 1000);
    if (m.e2eUs !== null) e2e.push(m.e2eUs / 1000);
    for (let j = 0; j < m.itlUs.length; j++) itl[itlAt++] = m.itlUs[j] / 1000;
    for (let j = 0; j < m.interChunkUs.length; j++) interChunk[gapAt++] = m.interChunkUs[j] / 1000;
    outputTokens += r.outputTokens;
    prompts.add(r);
    tokenSources[r.tokenSource] = (tokenSources[r.tokenSource] ?? 0) + 1;
    if (slo && meetsSlo(m, slo)) good++;
  });

  const durationUs = opts.durationUs ?? spanOfRequestsUs(measured);
  const durationS = durationUs / 1e6;
  const perSecond = (n: number) => (durationS > 0 ? n / durationS : 0);
  return {
    requests: {
      total: measured.length,
      succeeded: succeeded.length,
      failed,
      incomplete,
      warmup: requests.length - measured.length,
    },
    ttftMs: percentileSummary(ttft),
    ttfbMs: percentileSummary(ttfb),
    tpotMs: percentileSummary(tpot),
    itlMs: percentileSummary(itl),
    interChunkMs: percentileSummary(interChunk),
    e2eMs: percentileSummary(e2e),
    ...(opts.openLoop ? scheduleSummary(measured, succeeded, perRequest) : {}),
    outputTokens,
    ...prompts.summary(),
    outputTokensPerS: perSecond(outputTokens),
    requestsPerS: perSecond(succeeded.length),
    goodputRps: slo ? perSecond(good) : null,
    errorsByClass,
    tokenSources,
    durationS,
    ...(opts.tokenizer ? { tokenizer: opts.tokenizer } : {}),
  };
}
