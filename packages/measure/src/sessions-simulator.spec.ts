import { startSimulator, type RunningSimulator } from '@teapot/simulator';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadDataset } from './datasets';
import { runBenchmark } from './run';
import type { ApiKind, RequestRecord, RunOptions, Workload } from './types';

jest.setTimeout(30_000);

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator({ seed: 7 });
});
afterAll(() => sim.close());

/** A run of `workload` against the simulator, forced to the lengths asked, seed 5. */
function options(
  workload: Workload,
  overrides: Partial<RunOptions> = {},
  apiKind: ApiKind = 'chat',
): RunOptions {
  const target = { baseUrl: sim.baseUrl, apiKind, model: sim.deployment.model.name };
  return {
    target,
    workload,
    load: { kind: 'closed', concurrency: 2 },
    requests: 6,
    forceOutputLength: true,
    seed: 5,
    ...overrides,
  };
}

/** The run's records grouped by session, each in turn order. */
function sessionsOf(records: RequestRecord[]): RequestRecord[][] {
  const sessions = new Map<number, RequestRecord[]>();
  for (const r of records) {
    expect(r.sessionId).not.toBeNull();
    const list = sessions.get(r.sessionId!) ?? [];
    list.push(r);
    sessions.set(r.sessionId!, list);
  }
  return [...sessions.values()].map((list) => list.sort((a, b) => a.turnIndex! - b.turnIndex!));
}

describe('session workloads against the simulator', () => {
  it.each(['chat', 'completions'] as const)(
    'multi-turn (%s): each turn resends the history, counted by the server, after its think time',
    async (apiKind) => {
      const result = await runBenchmark(
        options(
          {
            kind: 'multi-turn',
            turns: 3,
            inputTokens: 8,
            outputTokens: 4,
            thinkTime: { distribution: 'constant', meanMs: 30 },
            actualAnswers: apiKind === 'chat',
          },
          {},
          apiKind,
        ),
      );
      expect(result.summary.requests.succeeded).toBe(6);
      const sessions = sessionsOf(result.requests);
      // concurrency 2 = two sessions in flight, each of 3 turns
      expect(sessions.map((s) => s.map((r) => r.turnIndex))).toEqual([
        [0, 1, 2],
        [0, 1, 2],
      ]);
      let reusable = 0;
      let prompt = 0;
      for (const turns of sessions) {
        for (let k = 0; k < turns.length; k++) {
          const r = turns[k];
          prompt += r.promptTokens!;
          if (k === 0) {
            expect(r.promptTokens).toBe(8);
            continue;
          }
          const before = turns[k - 1];
          // the server saw the previous prompt, its answer (as long as produced) and 8 new words
          expect(r.promptTokens).toBe(before.promptTokens! + before.outputTokens + 8);
          reusable += before.promptTokens!;
          const previousEndUs = before.startUs + before.chunkOffsetsUs[before.chunkOffsetsUs.length - 1];
          expect(r.scheduledUs - previousEndUs).toBeGreaterThanOrEqual(30_000);
          expect(r.startUs).toBeGreaterThanOrEqual(r.scheduledUs);
        }
      }
      const { workload, turns } = result.summary;
      expect(workload).toEqual({
        kind: 'multi-turn',
        sessions: 2,
        promptTokens: prompt,
        reusablePromptTokens: reusable,
        expectedReuseShare: reusable / prompt,
      });
      expect(turns!.byTurn.map((t) => [t.turn, t.ttftMs!.count])).toEqual([
        [0, 2],
        [1, 2],
        [2, 2],
      ]);
      expect(turns!.firstTtftMs!.count).toBe(2);
      expect(turns!.laterTtftMs!.count).toBe(4);
      expect(result.summary.ttftMs!.count).toBe(6);
    },
  );

  it('open load: arrivals start sessions, and the run sends exactly the requests asked for', async () => {
    const result = await runBenchmark(
      options(
        { kind: 'multi-turn', turns: 2, inputTokens: 8, outputTokens: 4 },
        { load: { kind: 'open', ratePerS: 50, arrival: 'constant' }, requests: 5 },
      ),
    );
    expect(result.requests).toHaveLength(5);
    const sessions = sessionsOf(result.requests);
    for (const turns of sessions)
      expect(turns.map((r) => r.turnIndex)).toEqual([0, 1].slice(0, turns.length));
    expect(result.summary.workload?.sessions).toBe(sessions.length);
    // each session opened at its arrival: constant gaps of 20 ms from the first
    const opened = sessions.map((turns) => turns[0].scheduledUs).sort((a, b) => a - b);
    opened.forEach((at, i) => expect(at - opened[0]).toBeCloseTo(i * 20_000, -1));
  });

  it('conversations of the shipped dataset: every turn sent, prompts counted by the server as built', async () => {
    const text = readFileSync(join(__dirname, '..', 'datasets', 'teapot-chats.sharegpt.jsonl'), 'utf8');
    const { conversations, source } = loadDataset(text, {
      format: 'sharegpt',
      sha256: 'test',
      filters: { sample: 3 },
      seed: 2,
    });
    const turns = conversations.reduce((n, c) => n + c.turns.length, 0);
    const result = await runBenchmark(
      options(
        { kind: 'conversations', conversations, source },
        { load: { kind: 'closed', concurrency: 1 }, requests: turns },
      ),
    );
    expect(result.summary.requests.succeeded).toBe(turns);
    const sessions = sessionsOf(result.requests);
    expect(sessions.map((s) => s.length)).toEqual(conversations.map((c) => c.turns.length));
    const words = (text: string) => text.split(/\s+/).filter(Boolean).length;
    sessions.forEach((records, i) => {
      const c = conversations[i];
      let history = c.system === undefined ? 0 : words(c.system);
      c.turns.forEach((turn, k) => {
        history += words(turn.user);
        expect(records[k].promptTokens).toBe(history);
        // forced to the recorded answer's length, which is sent back in the next turn
        expect(records[k].outputTokens).toBe(words(turn.assistant!));
        history += words(turn.assistant!);
      });
    });
    expect(result.summary.workload?.dataset).toEqual(source);
  });

  it('shared prefixes: the reuse share reported is exact for the requests sent', async () => {
    const workload = {
      kind: 'shared-prefix' as const,
      prefixes: 3,
      prefixTokens: 48,
      requestsPerPrefix: 4,
      suffixTokens: 16,
      outputTokens: 2,
    };
    const result = await runBenchmark(
      options(workload, { requests: 12, load: { kind: 'closed', concurrency: 3 } }),
    );
    const served = result.requests.reduce((n, r) => n + r.promptTokens!, 0);
    expect(served).toBe(12 * 64);
    expect(result.summary.workload).toEqual({
      kind: 'shared-prefix',
      prefixes: 3,
      promptTokens: 12 * 64,
      reusablePromptTokens: 3 * 3 * 48,
      expectedReuseShare: (3 / 4) * (48 / 64),
    });
    expect(result.summary.turns).toBeUndefined();
  });

  it('a duration-bounded run ends on time, cutting short the sessions that are thinking', async () => {
    const started = Date.now();
    const result = await runBenchmark(
      options(
        {
          kind: 'multi-turn',
          turns: 5,
          inputTokens: 8,
          outputTokens: 2,
          thinkTime: { distribution: 'constant', meanMs: 60_000 },
        },
        { requests: undefined, durationS: 0.5 },
      ),
    );
    // every session sent its first turn and then thought far longer than the run lasts
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(result.requests.every((r) => r.turnIndex === 0)).toBe(true);
    expect(result.requests).toHaveLength(2);
    expect(result.summary.workload?.sessions).toBe(2);
  });
});
