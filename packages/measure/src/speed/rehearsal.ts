import { DEFAULT_TRANSPORT, type RunOptions, type RunResult, type Workload } from '../types';
import type { Rehearsal } from './warm-up';

/** However the loopback behaves, the run does not wait longer than this for a rehearsal. */
const REHEARSAL_BUDGET_S = 2;

/**
 * A small run of the run's kind (transport, API, the whole request life) against the warm-up's
 * loopback responder at `baseUrl`.
 */
export function rehearsalOptions(options: RunOptions, baseUrl: string, rehearsal: Rehearsal): RunOptions {
  return {
    transport: options.transport ?? DEFAULT_TRANSPORT,
    target: { baseUrl, apiKind: options.target.apiKind, model: 'teapot-warm-up' },
    // the run's own prompts, so that what V8 compiles has seen strings like the run's
    workload: rehearsalWorkload(options.workload, rehearsal.chunks),
    load: { kind: 'closed', concurrency: rehearsal.streams },
    requests: rehearsal.requests,
    durationS: REHEARSAL_BUDGET_S,
    forceOutputLength: options.forceOutputLength,
    signal: options.signal,
    warmUp: false,
  };
}

/** The token chunks a rehearsal parsed. */
export function rehearsedChunks(result: RunResult): number {
  let chunks = 0;
  for (const record of result.requests) if (record.outcome === 'ok') chunks += record.chunkOffsetsUs.length;
  return chunks;
}

/** The run's prompts with every response `chunks` tokens long. */
function rehearsalWorkload(workload: Workload, chunks: number): Workload {
  if (workload.kind === 'synthetic')
    return { kind: 'synthetic', inputTokens: workload.inputTokens, outputTokens: chunks };
  // a rehearsal is a closed loop: the trace's prompts without its schedule
  if (workload.kind === 'trace')
    return { kind: 'synthetic', inputTokens: workload.requests[0].inputTokens, outputTokens: chunks };
  // sessions and prefixes of the run's kind, answers collected when the run collects them, no pauses
  if (workload.kind === 'multi-turn' || workload.kind === 'shared-prefix')
    return {
      ...workload,
      outputTokens: chunks,
      ...(workload.kind === 'multi-turn' ? { thinkTime: undefined } : {}),
    };
  if (workload.kind === 'conversations')
    return {
      ...workload,
      thinkTime: undefined,
      outputTokens: chunks,
      conversations: workload.conversations.map((c) => ({
        ...c,
        turns: c.turns.map(({ user, assistant }) => ({ user, assistant, outputTokens: chunks })),
      })),
    };
  return {
    kind: 'dataset',
    prompts: workload.prompts.map(({ prompt }) => ({ prompt })),
    outputTokens: chunks,
  };
}
