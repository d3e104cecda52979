import type { Schemas } from '../api/client';

type RunRequest = Pick<
  Schemas['RunRequestDto'],
  'warmup' | 'outcome' | 'startUs' | 'chunkOffsetsUs' | 'chunkTokens'
> & {
  metrics: Pick<Schemas['RunRequestDto']['metrics'], 'itlUs'>;
};

export interface TokenTimeline {
  /** Arrival of the chunk that carried each token, seconds from the run's anchor, ascending. */
  timeS: Float64Array;
  /** That token's ITL (the API's value: its chunk's gap split over the chunk's tokens), ms. */
  itlMs: Float64Array;
  /** Measured, successful requests drawn (warm-up and failed requests are not in the run's ITL). */
  requests: number;
}

/**
 * Every ITL sample of a run against time, so stalls (a prefill landing in the batch) show up as
 * columns across concurrent requests. The values are the API's `metrics.itlUs`; only their times come
 * from the chunk arrays: token chunk k after the first carries `chunkTokens[k]` of those samples.
 */
export function tokenTimeline(requests: readonly RunRequest[]): TokenTimeline {
  const times: number[] = [];
  const values: number[] = [];
  let drawn = 0;
  for (const request of requests) {
    if (request.warmup || request.outcome !== 'ok') continue;
    drawn++;
    const itl = request.metrics.itlUs;
    let sample = 0;
    let seenFirst = false;
    for (let k = 0; k < request.chunkTokens.length; k++) {
      const m = request.chunkTokens[k];
      if (m === 0) continue;
      if (!seenFirst) {
        seenFirst = true;
        continue;
      }
      const atS = (request.startUs + request.chunkOffsetsUs[k]) / 1e6;
      for (let j = 0; j < m && sample < itl.length; j++, sample++) {
        times.push(atS);
        values.push(itl[sample] / 1000);
      }
    }
  }
  const order = Array.from(times.keys()).sort((a, b) => times[a] - times[b]);
  return {
    timeS: Float64Array.from(order, (i) => times[i]),
    itlMs: Float64Array.from(order, (i) => values[i]),
    requests: drawn,
  };
}
