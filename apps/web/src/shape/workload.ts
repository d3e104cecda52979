import type { PercentileSummary, ProfileWorkload, RunSummary } from '@teapot/measure';
import { formatMs } from './format';

/**
 * What a run sent, in words (a trace's lines and speed, an open loop's sends against their schedule),
 * and its TTFT by turn (session workloads): the run page's "Workload".
 */
export interface WorkloadView {
  facts: string[];
  /** First turns, later turns, then each turn: TTFT count, P50 and P99. */
  turns: Array<{ label: string; count: number; p50: string; p99: string }>;
}

function thinkText(workload: {
  thinkTime?: { distribution: string; meanMs: number };
  actualAnswers?: boolean;
}) {
  const think = workload.thinkTime
    ? `${workload.thinkTime.distribution} think time of mean ${formatMs(workload.thinkTime.meanMs)}`
    : 'no think time';
  return `${think} · ${workload.actualAnswers ? "the model's own answers sent back" : 'answers not the model’s own'}`;
}

/** The workload as the profile asked for it (the run's snapshot). */
function askedFacts(workload: ProfileWorkload): string[] {
  switch (workload.kind) {
    case 'synthetic':
      return [`synthetic prompts: ${workload.inputTokens} in / ${workload.outputTokens} out tokens`];
    case 'dataset':
      return [`${workload.prompts.length} prompts from the profile`];
    case 'multi-turn':
      return [
        `multi-turn sessions of ${workload.turns} turns: ${workload.inputTokens} new tokens and ${workload.outputTokens} out a turn` +
          (workload.systemTokens ? `, a shared system prompt of ${workload.systemTokens} tokens` : ''),
        thinkText(workload),
      ];
    case 'shared-prefix':
      return [
        `shared prefixes: ${workload.prefixes} of ${workload.prefixTokens} tokens, each used by ${workload.requestsPerPrefix} requests (interleaved), ` +
          `suffixes of ${workload.suffixTokens} tokens, ${workload.outputTokens} out`,
      ];
    case 'dataset-asset': {
      const filters = (
        ['minInputTokens', 'maxInputTokens', 'maxOutputTokens', 'maxTurns', 'sample'] as const
      ).flatMap((key) => (workload[key] === undefined ? [] : [`${key} ${workload[key]}`]));
      return [
        `${workload.format} dataset ${workload.sha256}, every conversation a session` +
          (filters.length > 0 ? ` (${filters.join(', ')})` : ''),
        thinkText(workload),
      ];
    }
    case 'trace-asset':
      return [
        `trace ${workload.sha256} replayed at ${workload.speed ?? 1}x: each line sent at its time with its input and output lengths`,
      ];
    default:
      return [`workload ${(workload as { kind: string }).kind}`];
  }
}

/** What the run reports it sent (summary.workload). */
function sentFacts(sent: NonNullable<RunSummary['workload']>): string[] {
  const parts: string[] = [];
  if (sent.trace) {
    const { lines, spanS, format, speed } = sent.trace;
    parts.push(`trace of ${lines} lines over ${spanS.toFixed(1)} s (${format} format) replayed at ${speed}x`);
  }
  if (sent.sessions !== undefined) parts.push(`${sent.sessions} sessions started`);
  if (sent.dataset)
    parts.push(
      `${sent.dataset.sampled} of ${sent.dataset.read} conversations sent (${sent.dataset.kept} through the filters, ${sent.dataset.turns} turns)`,
    );
  parts.push(`${sent.promptTokens} prompt tokens sent`);
  if (sent.expectedReuseShare !== null)
    parts.push(
      `${(100 * sent.expectedReuseShare).toFixed(1)}% of them repeat an earlier prompt's start (what a prefix cache could reuse)`,
    );
  return [parts.join(' · ')];
}

/** An open loop's sends against their schedule, and TTFT/E2E from the scheduled send time. */
function scheduleFacts(run: RunSummary): string[] {
  const late = run.sendLateness;
  if (late === undefined) return [];
  const facts = [
    `${late.late} of ${late.sent} requests sent over ${late.thresholdMs} ms behind schedule (lateness P50 ` +
      `${formatMs(late.p50Ms)}, P99 ${formatMs(late.p99Ms)}, max ${formatMs(late.maxMs)})`,
  ];
  const ttft = run.ttftFromScheduleMs;
  const e2e = run.e2eFromScheduleMs;
  if (ttft && e2e)
    facts.push(
      `from the scheduled send time (waits for a free slot included): TTFT P50 ${formatMs(ttft.p50)}, P99 ` +
        `${formatMs(ttft.p99)} · E2E P50 ${formatMs(e2e.p50)}, P99 ${formatMs(e2e.p99)}`,
    );
  return facts;
}

function row(label: string, summary: PercentileSummary | null) {
  return { label, count: summary?.count ?? 0, p50: formatMs(summary?.p50), p99: formatMs(summary?.p99) };
}

export function workloadView(snapshot: unknown, summary: unknown): WorkloadView {
  const workload = (snapshot as { workload?: ProfileWorkload } | null)?.workload;
  const run = summary as RunSummary | null;
  const facts = [
    ...(workload ? askedFacts(workload) : []),
    ...(run?.workload ? sentFacts(run.workload) : []),
    ...(run ? scheduleFacts(run) : []),
  ];
  const turns = run?.turns
    ? [
        row('first turns', run.turns.firstTtftMs),
        row('later turns', run.turns.laterTtftMs),
        ...run.turns.byTurn.map((t) => row(`turn ${t.turn}`, t.ttftMs)),
      ]
    : [];
  return { facts, turns };
}
