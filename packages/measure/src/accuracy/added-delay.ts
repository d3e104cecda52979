import type { ClientDocument } from './documents';

/** What the simulator's ground truth says it wrote on one stream, as far as matching a client needs. */
export interface WrittenStream {
  events: ReadonlyArray<{ kind: string; tokens: number; writtenNs: bigint }>;
}

/** A client's token chunks against what the simulator wrote: every chunk's added delay and gap error. */
export interface AddedDelays {
  /** Arrival minus the simulator's writtenNs (just after its write returned), per token chunk, ms. */
  delaysMs: number[];
  /** The writtenNs of each of those chunks. */
  writtenNs: bigint[];
  /** Written gap between consecutive token chunks of a stream: the decode step, ms. */
  stepsMs: number[];
  /** |measured gap - written gap| of consecutive token chunks of a stream: the error an ITL carries, ms. */
  gapErrorsMs: number[];
  /** Streams whose chunks did not line up one to one (and token for token, where counted) with the truth. */
  unmatched: number;
}

/** Matches each stream of `run` with the content chunks the simulator wrote on it (`truth`, by response id). */
export function addedDelays(run: ClientDocument, truth: Map<string, WrittenStream>): AddedDelays {
  const originNs = BigInt(run.originNs);
  const found: AddedDelays = { delaysMs: [], writtenNs: [], stepsMs: [], gapErrorsMs: [], unmatched: 0 };
  for (const stream of run.streams) {
    const sent = truth.get(stream.id)?.events.filter((e) => e.kind === 'content' && e.tokens > 0);
    const miscounted = stream.tokens !== null && sent?.some((e, i) => e.tokens !== stream.tokens?.[i]);
    if (!sent || sent.length !== stream.ns.length || miscounted) {
      found.unmatched++;
      continue;
    }
    const arrivals = stream.ns.map((ns) => originNs + BigInt(Math.round(ns)));
    sent.forEach((event, i) => {
      found.delaysMs.push(Number(arrivals[i] - event.writtenNs) / 1e6);
      found.writtenNs.push(event.writtenNs);
      if (i === 0) return;
      const writtenGapNs = event.writtenNs - sent[i - 1].writtenNs;
      found.stepsMs.push(Number(writtenGapNs) / 1e6);
      const measuredGapNs = arrivals[i] - arrivals[i - 1];
      found.gapErrorsMs.push(Math.abs(Number(measuredGapNs - writtenGapNs)) / 1e6);
    });
  }
  return found;
}
