import { requestMetrics } from './metrics';
import { percentileSummary } from './stats';
import type { RequestRecord, TurnSummary, Workload, WorkloadReport } from './types';

/**
 * TTFT by turn index over the successful measured requests of a session workload (the same requests
 * and definition as the run's ttftMs), and the sessions' first turns against their later ones.
 */
export function turnSummary(requests: RequestRecord[]): TurnSummary {
  const byTurn: number[][] = [];
  const first: number[] = [];
  const later: number[] = [];
  for (const record of requests) {
    if (record.warmup || record.outcome !== 'ok' || record.turnIndex === null) continue;
    const { ttftUs } = requestMetrics(record);
    if (ttftUs === null) continue;
    const ms = ttftUs / 1000;
    (byTurn[record.turnIndex] ??= []).push(ms);
    (record.turnIndex === 0 ? first : later).push(ms);
  }
  return {
    byTurn: Array.from(byTurn, (values, turn) => ({ turn, ttftMs: percentileSummary(values ?? []) })),
    firstTtftMs: percentileSummary(first),
    laterTtftMs: percentileSummary(later),
  };
}

/** What a run sent: its kind, sessions or prefixes, dataset or trace, and the share of prompt words (tokens) a prefix cache could reuse. */
export function workloadReport(
  workload: Workload,
  sent: { sessions: number | undefined; promptWords: number; reusableWords: number },
): WorkloadReport {
  const report: WorkloadReport = {
    kind: workload.kind,
    promptTokens: sent.promptWords,
    reusablePromptTokens: sent.reusableWords,
    expectedReuseShare: sent.promptWords > 0 ? sent.reusableWords / sent.promptWords : null,
  };
  if (sent.sessions !== undefined) report.sessions = sent.sessions;
  if (workload.kind === 'shared-prefix') report.prefixes = workload.prefixes;
  if (workload.kind === 'conversations' && workload.source !== undefined) report.dataset = workload.source;
  if (workload.kind === 'trace' && workload.source !== undefined) report.trace = workload.source;
  return report;
}
