import { deriveSeed, exponentialSample, mulberry32, type Random } from './random';
import { countWords, syntheticPrompt, type ChatMessage, type PromptSpec } from './prompt-spec';
import type { ApiKind, Workload } from './types';
import type { Conversation, ThinkTime } from '@teapot/run-definitions';
import { DEFAULT_DATASET_OUTPUT_TOKENS } from './workload';

export type SessionWorkload = Extract<Workload, { kind: 'multi-turn' | 'conversations' }>;

export function isSessionWorkload(workload: Workload): workload is SessionWorkload {
  return workload.kind === 'multi-turn' || workload.kind === 'conversations';
}

/** How a session's previous turn ended: what the next turn builds on. */
export interface TurnOutcome {
  ok: boolean;
  /** Output tokens the server produced. */
  outputTokens: number;
  /** The streamed answer's text, when the spec asked for it. */
  answer: string | null;
}

export interface SessionTurn {
  spec: PromptSpec;
  /** The pause before this turn is sent, ms (0 for a session's first turn). */
  thinkMs: number;
}

/** What one turn asks: the user's message, max_tokens, and the answer to send back when not the model's own. */
interface TurnScript {
  user: string;
  userWords: number;
  outputTokens: number;
  /** The recorded answer; null: a synthetic answer as long as the one produced. */
  recordedAnswer: string | null;
}

interface SessionScript {
  turns: number;
  system: string | null;
  /** The same opening was sent before (a conversation sent again): turn 0 repeats it word for word. */
  repeat: boolean;
  turn(k: number, random: Random): TurnScript;
}

function jittered(target: number, jitter: number, random: Random): number {
  if (jitter <= 0) return target;
  return Math.max(1, Math.round(target * (1 + jitter * (2 * random() - 1))));
}

function thinkDelayMs(think: ThinkTime | undefined, random: Random): number {
  if (think === undefined || think.meanMs <= 0) return 0;
  return think.distribution === 'constant' ? think.meanMs : think.meanMs * exponentialSample(random);
}

/**
 * One session: each turn resends the conversation so far (chat: the messages; completions: their
 * texts joined by newlines) plus the next user message, so every turn's prompt starts with the whole
 * previous prompt word for word.
 */
export class Session {
  private readonly messages: ChatMessage[] = [];
  private text = '';
  private historyWords = 0;
  private previousPromptWords = 0;
  private nextTurn = 0;
  private pendingAnswer: string | null = null;
  private readonly random: Random;
  private readonly thinkRandom: Random;

  constructor(
    readonly id: number,
    private readonly script: SessionScript,
    private readonly apiKind: ApiKind,
    private readonly options: { thinkTime?: ThinkTime; actualAnswers: boolean; seed: number },
    private readonly systemSeen: boolean,
  ) {
    this.random = mulberry32(deriveSeed(deriveSeed(options.seed, 8), id));
    this.thinkRandom = mulberry32(deriveSeed(deriveSeed(options.seed, 9), id));
    if (script.system !== null) this.append('system', script.system);
  }

  /** The next turn after `previous` (null for the first), or null when the session is over. */
  next(previous: TurnOutcome | null): SessionTurn | null {
    const k = this.nextTurn;
    if (k > 0) {
      if (previous === null || !previous.ok) return null;
      const answer =
        this.options.actualAnswers && previous.answer !== null && previous.answer.trim() !== ''
          ? previous.answer
          : (this.pendingAnswer ?? syntheticPrompt(Math.max(1, previous.outputTokens), this.random));
      this.append('assistant', answer);
    }
    if (k >= this.script.turns) return null;
    const turn = this.script.turn(k, this.random);
    this.pendingAnswer = turn.recordedAnswer;
    const promptWords = this.historyWords + turn.userWords;
    let reusable = this.previousPromptWords;
    if (k === 0) {
      if (this.script.repeat) reusable = promptWords;
      else if (this.systemSeen) reusable = this.historyWords;
    }
    this.append('user', turn.user);
    this.previousPromptWords = promptWords;
    this.nextTurn++;
    const chat = this.apiKind === 'chat';
    const spec: PromptSpec = {
      prompt: chat ? '' : this.text,
      messages: chat ? this.messages.slice() : null,
      outputTokens: turn.outputTokens,
      targetPromptTokens: null,
      promptWords,
      reusableWords: reusable,
      sessionId: this.id,
      turnIndex: k,
      collectAnswer: this.options.actualAnswers && k + 1 < this.script.turns,
    };
    return { spec, thinkMs: k === 0 ? 0 : thinkDelayMs(this.options.thinkTime, this.thinkRandom) };
  }

  private append(role: ChatMessage['role'], content: string): void {
    if (this.apiKind === 'chat') this.messages.push({ role, content });
    else this.text = this.text === '' ? content : `${this.text}\n${content}`;
    this.historyWords += countWords(content);
  }
}

/** Starts a run's sessions in order: session ids 0, 1, 2, ..., each reproducible from the seed and its id. */
export class SessionPlan {
  private started = 0;
  private readonly systemsSent = new Set<string>();
  private readonly sharedSystem: string | null;

  constructor(
    private readonly workload: SessionWorkload,
    private readonly seed: number,
    private readonly apiKind: ApiKind,
  ) {
    const systemTokens = workload.kind === 'multi-turn' ? (workload.systemTokens ?? 0) : 0;
    this.sharedSystem =
      systemTokens > 0 ? syntheticPrompt(systemTokens, mulberry32(deriveSeed(seed, 10))) : null;
    if (workload.kind === 'conversations' && workload.conversations.length === 0)
      throw new RangeError('conversations workload has no conversations');
  }

  get sessions(): number {
    return this.started;
  }

  start(): Session {
    const id = this.started++;
    const script = this.script(id);
    const systemSeen = script.system !== null && this.systemsSent.has(script.system);
    if (script.system !== null) this.systemsSent.add(script.system);
    const { thinkTime, actualAnswers } = this.workload;
    return new Session(
      id,
      script,
      this.apiKind,
      { thinkTime, actualAnswers: actualAnswers ?? false, seed: this.seed },
      systemSeen,
    );
  }

  private script(id: number): SessionScript {
    const { workload } = this;
    if (workload.kind === 'multi-turn') {
      const jitter = workload.lengthJitter ?? 0;
      return {
        turns: workload.turns,
        system: this.sharedSystem,
        repeat: false,
        turn: (_k, random) => {
          const words = jittered(workload.inputTokens, jitter, random);
          return {
            user: syntheticPrompt(words, random),
            userWords: words,
            outputTokens: jittered(workload.outputTokens, jitter, random),
            recordedAnswer: null,
          };
        },
      };
    }
    const { conversations } = workload;
    const conversation: Conversation = conversations[id % conversations.length];
    const fallback = workload.outputTokens ?? DEFAULT_DATASET_OUTPUT_TOKENS;
    return {
      turns: conversation.turns.length,
      system: conversation.system ?? null,
      repeat: id >= conversations.length,
      turn: (k) => {
        const turn = conversation.turns[k];
        const answerWords = turn.assistant === undefined ? 0 : countWords(turn.assistant);
        return {
          user: turn.user,
          userWords: countWords(turn.user),
          outputTokens: turn.outputTokens ?? (answerWords > 0 ? answerWords : fallback),
          recordedAnswer: turn.assistant ?? null,
        };
      },
    };
  }
}
