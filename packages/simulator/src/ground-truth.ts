import type { FaultMode } from './faults';
import { emptyTally, type ServingTally } from './scheduler';

export type GroundTruthEventKind = 'role' | 'content' | 'usage' | 'error';

/** One SSE `data:` event the server wrote (or, for a non-streamed response, the one JSON body). */
export interface GroundTruthEvent {
  kind: GroundTruthEventKind;
  /** Output tokens this event carried. */
  tokens: number;
  /** Model time: when the engine step that produced these tokens ended (process.hrtime.bigint() clock). */
  scheduledNs: bigint;
  /** process.hrtime.bigint() just before `res.write`: no client can have the bytes earlier. */
  writeStartNs: bigint;
  /** process.hrtime.bigint() right after `res.write` returned and the socket was uncorked: the kernel had the bytes. */
  writtenNs: bigint;
}

export interface GroundTruthFault {
  mode: FaultMode;
  /** Tokens the fault waits for before it fires (mid-stream modes). */
  afterTokens: number;
  /** When it fired; null if the response ended before reaching it. */
  firedNs: bigint | null;
}

/** What the engine's mechanisms did for a response (zeros for those switched off). */
export interface GroundTruthServing extends ServingTally {
  /** The probability each of its draft tokens was accepted with (speculative decoding), else null. */
  draftAcceptance: number | null;
}

export interface GroundTruth {
  id: string;
  model: string;
  promptTokens: number;
  events: GroundTruthEvent[];
  api: 'chat' | 'completions';
  stream: boolean;
  /** HTTP status sent (0 when the socket was destroyed without a response). */
  status: number;
  /** When the request body had arrived. */
  arrivedNs: bigint;
  finishReason: 'stop' | 'length' | null;
  fault: GroundTruthFault | null;
  /** The response ended as the protocol says (`[DONE]` or the full JSON body). */
  complete: boolean;
  serving: GroundTruthServing;
}

/** GroundTruth as JSON on the side channel: every bigint as a decimal string. */
export type GroundTruthJson = Omit<GroundTruth, 'events' | 'arrivedNs' | 'fault'> & {
  events: Array<{
    kind: GroundTruthEventKind;
    tokens: number;
    scheduledNs: string;
    writeStartNs: string;
    writtenNs: string;
  }>;
  arrivedNs: string;
  fault: (Omit<GroundTruthFault, 'firedNs'> & { firedNs: string | null }) | null;
};

const KINDS: readonly GroundTruthEventKind[] = ['role', 'content', 'usage', 'error'];
const KIND_CODE: Readonly<Record<GroundTruthEventKind, number>> = { role: 0, content: 1, usage: 2, error: 3 };
const STRIDE = 5;

/**
 * The mutable record of one response. Events are packed in one Float64Array (kind, tokens and the three
 * times as ns offsets from arrival: exact for 104 days) so that 200k traces stay compact.
 */
export class ResponseTrace {
  status = 200;
  finishReason: 'stop' | 'length' | null = null;
  fault: GroundTruthFault | null = null;
  complete = false;
  /** Updated by the engine's scheduler as it serves the request. */
  readonly serving: GroundTruthServing = { ...emptyTally(), draftAcceptance: null };
  /** Set by the store so that growth counts against its event budget. */
  onGrow: ((addedEvents: number) => void) | null = null;
  private packed: Float64Array;
  private length = 0;

  constructor(
    readonly id: string,
    readonly model: string,
    readonly promptTokens: number,
    readonly api: 'chat' | 'completions',
    readonly stream: boolean,
    readonly arrivedNs: bigint,
    expectedEvents: number,
  ) {
    this.packed = new Float64Array(Math.max(1, expectedEvents) * STRIDE);
  }

  get eventCount(): number {
    return this.length;
  }

  get capacity(): number {
    return this.packed.length / STRIDE;
  }

  record(
    kind: GroundTruthEventKind,
    tokens: number,
    scheduledNs: bigint,
    writeStartNs: bigint,
    writtenNs: bigint,
  ): void {
    if (this.length === this.capacity) {
      const grown = new Float64Array(this.packed.length * 2);
      grown.set(this.packed);
      this.onGrow?.(this.capacity);
      this.packed = grown;
    }
    const at = this.length++ * STRIDE;
    this.packed[at] = KIND_CODE[kind];
    this.packed[at + 1] = tokens;
    this.packed[at + 2] = Number(scheduledNs - this.arrivedNs);
    this.packed[at + 3] = Number(writeStartNs - this.arrivedNs);
    this.packed[at + 4] = Number(writtenNs - this.arrivedNs);
  }

  toGroundTruth(): GroundTruth {
    const events: GroundTruthEvent[] = [];
    for (let i = 0; i < this.length; i++) {
      const at = i * STRIDE;
      events.push({
        kind: KINDS[this.packed[at]],
        tokens: this.packed[at + 1],
        scheduledNs: this.arrivedNs + BigInt(this.packed[at + 2]),
        writeStartNs: this.arrivedNs + BigInt(this.packed[at + 3]),
        writtenNs: this.arrivedNs + BigInt(this.packed[at + 4]),
      });
    }
    return {
      id: this.id,
      model: this.model,
      promptTokens: this.promptTokens,
      events,
      api: this.api,
      stream: this.stream,
      status: this.status,
      arrivedNs: this.arrivedNs,
      finishReason: this.finishReason,
      fault: this.fault && { ...this.fault },
      complete: this.complete,
      serving: { ...this.serving },
    };
  }
}

export interface GroundTruthLimits {
  /** Responses kept; the oldest are evicted first. */
  maxResponses: number;
  /** Events kept over all responses (40 bytes each), so long runs of long responses stay bounded too. */
  maxEvents: number;
}

export const DEFAULT_GROUND_TRUTH_LIMITS: Readonly<GroundTruthLimits> = {
  maxResponses: 200_000,
  maxEvents: 8_000_000,
};

export class GroundTruthStore {
  private readonly traces = new Map<string, ResponseTrace>();
  private reservedEvents = 0;

  constructor(private readonly limits: GroundTruthLimits = DEFAULT_GROUND_TRUTH_LIMITS) {}

  add(trace: ResponseTrace): void {
    this.traces.set(trace.id, trace);
    this.reservedEvents += trace.capacity;
    trace.onGrow = (added) => {
      if (this.traces.get(trace.id) !== trace) return;
      this.reservedEvents += added;
      this.evict();
    };
    this.evict();
  }

  get(id: string): ResponseTrace | undefined {
    return this.traces.get(id);
  }

  get size(): number {
    return this.traces.size;
  }

  private evict(): void {
    for (const [id, trace] of this.traces) {
      if (this.traces.size <= this.limits.maxResponses && this.reservedEvents <= this.limits.maxEvents)
        return;
      if (this.traces.size === 1) return;
      this.traces.delete(id);
      this.reservedEvents -= trace.capacity;
    }
  }
}

export function groundTruthToJson(truth: GroundTruth): GroundTruthJson {
  return {
    ...truth,
    arrivedNs: truth.arrivedNs.toString(),
    events: truth.events.map((e) => ({
      kind: e.kind,
      tokens: e.tokens,
      scheduledNs: e.scheduledNs.toString(),
      writeStartNs: e.writeStartNs.toString(),
      writtenNs: e.writtenNs.toString(),
    })),
    fault: truth.fault && { ...truth.fault, firedNs: truth.fault.firedNs?.toString() ?? null },
  };
}

/** The inverse of groundTruthToJson, for clients of the side channel. */
export function groundTruthFromJson(json: GroundTruthJson): GroundTruth {
  return {
    ...json,
    arrivedNs: BigInt(json.arrivedNs),
    events: json.events.map((e) => ({
      kind: e.kind,
      tokens: e.tokens,
      scheduledNs: BigInt(e.scheduledNs),
      writeStartNs: BigInt(e.writeStartNs),
      writtenNs: BigInt(e.writtenNs),
    })),
    fault: json.fault && {
      ...json.fault,
      firedNs: json.fault.firedNs === null ? null : BigInt(json.fault.firedNs),
    },
  };
}
