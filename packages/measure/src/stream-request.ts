import type { Dispatcher } from 'undici';
import type { IncomingHttpHeaders } from 'node:http';
import { ChunkFields, chunkFieldsFromJson, scanChunk } from './chunk-scan';
import type { StreamTransport } from './transport';
import { SseLineTooLongError } from './sse';
import type { AttemptScratch, ScratchShelf, ScratchUser } from './speed/attempt-scratch';
import type { TimingSlab } from './speed/timing-slab';
import { CLOCK_LEAD_US, clockNs } from './speed/clock';
import { attributeTokens, invalidUsageCount, NO_USAGE } from './tokens';
import {
  CHUNK_KIND,
  type ApiKind,
  type ErrorClass,
  type RequestError,
  type RequestOutcome,
  type RequestRecord,
} from './types';
import type { PromptSpec } from './workload';
import { ARRIVAL, type ArrivalInbox, type ArrivalSink } from './arrival-inbox';
import {
  classifyTransportError,
  describeStreamError,
  errorMessage,
  isProtocolError,
  parseRetryAfter,
  truncate,
} from './request-errors';

const MAX_OFFSET_US = 0xffffffff;
const ERROR_BODY_LIMIT = 4096;
/** An answer kept for the next turn stops growing here: a server that never stops costs no more. */
const ANSWER_LIMIT_CHARS = 200_000;

/** Settings shared by every request of a run. */
export interface RequestContext {
  pool: StreamTransport;
  path: string;
  headers: Record<string, string>;
  apiKind: ApiKind;
  model: string;
  forceOutputLength: boolean;
  anchorNs: bigint;
  inbox: ArrivalInbox;
  /** Working state handed from finished attempts to new ones. */
  scratch: ScratchShelf;
  /** Where the records' timing arrays are carved from. */
  timings: TimingSlab;
  streamOptions: {
    /** Currently sent with new requests. */
    send: boolean;
    /** A 200 with stream_options, or a retry without them refused alike: a later 400 is about something else. */
    knownAccepted: boolean;
    rejectedByServer: boolean;
    retriedRequests: number;
  };
  /** Live count of streamed output tokens, for progress. */
  live: { outputTokens: number };
  /**
   * New attempts keep their streamed text (for the run's tokenizer to count): set when the run has a
   * tokenizer, cleared by the first usage count the server sends, after which no text is kept.
   */
  outputText: { wanted: boolean };
}

export interface AttemptIdentity {
  index: number;
  warmup: boolean;
  /** Intended send time from the run anchor; null for closed loop (equals the start). */
  scheduledUs: number | null;
}

export interface AttemptResult {
  record: RequestRecord;
  /** The server refused stream_options: send this request again without them. */
  retryWithoutStreamOptions: boolean;
  /** HTTP status of the response, null when none arrived. */
  status: number | null;
  /** The answer's text when the spec asked for it (PromptSpec.collectAnswer), else null. */
  answer: string | null;
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The body of one completion request. */
export function requestBody(
  apiKind: ApiKind,
  model: string,
  spec: PromptSpec,
  withStreamOptions: boolean,
  forceOutputLength: boolean,
): string {
  const body: Record<string, unknown> = { model };
  if (apiKind === 'chat') body.messages = spec.messages ?? [{ role: 'user', content: spec.prompt }];
  else body.prompt = spec.prompt;
  body.max_tokens = spec.outputTokens;
  body.stream = true;
  if (withStreamOptions) body.stream_options = { include_usage: true, continuous_usage_stats: true };
  if (forceOutputLength) {
    body.ignore_eos = true;
    body.min_tokens = spec.outputTokens;
  }
  return JSON.stringify(body);
}

/**
 * One HTTP attempt of one request, as an undici dispatch handler. The undici callbacks only take the
 * arrival time and hand the bytes to the run's ArrivalInbox; parsing happens when the inbox drains,
 * every event stamped with the arrival time of the read that completed it.
 */
export class StreamAttempt implements Dispatcher.DispatchHandler, ArrivalSink, ScratchUser {
  /** Run clock (clockNs): when the request was handed to the pool, then just before it was written. */
  startNs: number;
  /** Run clock (clockNs) of the latest response bytes, from the response headers on; -1 before. */
  lastArrivalNs = -1;
  settled = false;

  /** Hears the result, once; given by `send`. */
  private onSettled: ((result: AttemptResult) => void) | null = null;
  private controller: Dispatcher.DispatchController | null = null;
  private status: number | null = null;
  private retryAfterS: number | undefined;
  /** The response's content-type when it is not an event stream ('' when it is, or unnamed). */
  private otherContentType = '';
  private ttfbNs: number | null = null;
  private errorBody = '';
  /** Taken from the run's shelf when built, given back when settled (see ScratchShelf). */
  private scratch: AttemptScratch;
  private readUs = 0;
  private count = 0;
  private sawDone = false;
  private finishReason: string | null = null;
  private responseId: string | null = null;
  private promptTokens: number | null = null;
  private finalCompletionTokens: number | null = null;
  private liveCounted = 0;
  /** The streamed text while it may be needed (RequestContext.outputText), else null. */
  private text: string | null;
  private error: RequestError | null = null;
  private outcome: RequestOutcome | null = null;
  /** The streamed text, kept only when the spec asks for it (off the fast path otherwise). */
  private answer = '';

  constructor(
    private readonly context: RequestContext,
    private readonly identity: AttemptIdentity,
    private readonly spec: PromptSpec,
    readonly withStreamOptions: boolean,
  ) {
    this.scratch = context.scratch.take(this);
    this.startNs = clockNs(context.anchorNs);
    this.text = context.outputText.wanted ? '' : null;
  }

  /**
   * Sends the request; `onSettled` hears the result. A callback, not a promise: at 1024 streams a
   * wave's promise chains were young objects that survived the next scavenge (see ScratchShelf).
   */
  send(onSettled: (result: AttemptResult) => void): void {
    const { context } = this;
    this.onSettled = onSettled;
    // handed to the pool now (an attempt may be built before the measured window); the transport's
    // onRequestStart moves this to just before the write
    this.startNs = clockNs(context.anchorNs);
    const body = requestBody(
      context.apiKind,
      context.model,
      this.spec,
      this.withStreamOptions,
      context.forceOutputLength,
    );
    try {
      context.pool.dispatch(
        {
          path: context.path,
          method: 'POST',
          headers: context.headers,
          body,
          headersTimeout: 0,
          bodyTimeout: 0,
        },
        this,
      );
    } catch (err) {
      // a transport throws only for what it was handed, never for what the endpoint did
      this.fail('client_config', errorMessage(err));
    }
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.settled) {
      controller.abort(new Error(this.error?.message ?? 'cancelled'));
      return;
    }
    this.startNs = clockNs(this.context.anchorNs);
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
  ): void {
    const now = clockNs(this.context.anchorNs);
    // 1xx (e.g. 103 Early Hints) come before the real response
    if (statusCode < 200 || this.ttfbNs !== null) return;
    this.ttfbNs = now;
    this.lastArrivalNs = now;
    this.status = statusCode;
    // kept only for the error it explains: a header value is a slice that keeps the whole head alive
    const contentType = headerValue(headers, 'content-type') ?? '';
    if (!contentType.includes('event-stream')) this.otherContentType = contentType;
    if (statusCode === 429) this.retryAfterS = parseRetryAfter(headerValue(headers, 'retry-after'));
    if (statusCode === 200 && this.withStreamOptions) this.context.streamOptions.knownAccepted = true;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    const now = clockNs(this.context.anchorNs);
    this.lastArrivalNs = now;
    this.context.inbox.push(this, ARRIVAL.data, chunk, now);
  }

  onResponseEnd(): void {
    this.context.inbox.push(this, ARRIVAL.end, null, clockNs(this.context.anchorNs));
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    this.context.inbox.push(this, ARRIVAL.error, err, clockNs(this.context.anchorNs));
  }

  /** Inbox: bytes that arrived at `arrivalNs`. */
  handleRead(chunk: Buffer, arrivalNs: number): void {
    if (this.settled) return;
    if (this.status !== 200) {
      if (this.errorBody.length < ERROR_BODY_LIMIT) this.errorBody += chunk.toString('utf8');
      return;
    }
    this.readUs = Math.round(arrivalNs / 1000) - Math.round(this.startNs / 1000);
    try {
      this.scratch.parser.push(chunk);
    } catch (err) {
      if (!(err instanceof SseLineTooLongError)) throw err;
      this.fail('malformed_stream', err.message);
    }
  }

  handleEnd(): void {
    if (this.settled) return;
    if (this.status !== 200) {
      this.finishHttpError();
      return;
    }
    this.finishStream(null);
  }

  handleTransportError(err: unknown): void {
    if (this.settled) return;
    if (this.status !== null && this.status !== 200) {
      this.finishHttpError();
      return;
    }
    if (this.status === 200) {
      this.finishStream(err);
      return;
    }
    this.fail(classifyTransportError(err, false), errorMessage(err));
  }

  /** Ends the attempt as failed (or cut short) now and stops the transfer. */
  fail(kind: ErrorClass, message: string, outcome: RequestOutcome = 'error'): void {
    if (this.settled) return;
    this.error = { kind, message: truncate(message) };
    if (this.status !== null && (kind === 'http_status' || kind === 'rate_limited'))
      this.error.status = this.status;
    if (kind === 'rate_limited' && this.retryAfterS !== undefined) this.error.retryAfterS = this.retryAfterS;
    this.outcome = outcome;
    this.controller?.abort(new Error(`teapot: ${kind}`));
    this.settle(false);
  }

  private finishHttpError(): void {
    const status = this.status ?? 0;
    const body = this.errorBody;
    const streamOptions = this.context.streamOptions;
    // A server that refuses stream_options answers 400/422; if none has accepted them yet, or the body
    // names them, try once more without (a second refusal shows the 400 was about something else).
    const blameStreamOptions =
      this.withStreamOptions &&
      (status === 400 || status === 422) &&
      (body.includes('stream_options') || !streamOptions.knownAccepted);
    const kind: ErrorClass = status === 429 ? 'rate_limited' : 'http_status';
    const message = `HTTP ${status}${body.trim() === '' ? '' : `: ${body.trim()}`}`;
    this.error = { kind, message: truncate(message), status };
    if (kind === 'rate_limited' && this.retryAfterS !== undefined) this.error.retryAfterS = this.retryAfterS;
    this.outcome = 'error';
    this.settle(blameStreamOptions);
  }

  /** The 200 stream ended (cleanly, or by `transportError`). */
  private finishStream(transportError: unknown): void {
    const droppedBytes = this.scratch.parser.end();
    if (this.settled) return;
    // Without [DONE], the stream still counts as complete when the server sent a finish_reason and
    // the last line was whole: some servers omit [DONE]; a cut stream has no finish_reason.
    const complete = this.sawDone || (this.finishReason !== null && droppedBytes === 0);
    if (complete && !this.producedOutput()) {
      // an answer with nothing in it is not a fast answer: counted as ok it would show 0 tokens in
      // the rates and hide the failure from the error rate
      const claimed = this.finalCompletionTokens ? ` (usage claimed ${this.finalCompletionTokens})` : '';
      this.fail(
        'no_tokens',
        `the stream completed without a token: ${this.count} chunk(s), none with content, reasoning or a tool call${claimed}`,
      );
      return;
    }
    if (complete) {
      this.outcome = 'ok';
      this.settle(false);
      return;
    }
    if (this.count === 0 && this.otherContentType !== '') {
      this.fail('malformed_stream', `not an event stream: content-type ${this.otherContentType}`);
      return;
    }
    if (isProtocolError(transportError)) {
      this.fail('malformed_stream', `malformed response: ${errorMessage(transportError)}`);
      return;
    }
    const why =
      transportError === null
        ? `stream ended without [DONE] or finish_reason${droppedBytes > 0 ? ` (${droppedBytes} bytes of a partial line)` : ''}`
        : `connection failed mid-stream: ${errorMessage(transportError)}`;
    this.fail('truncated_stream', why);
  }

  /** The common case, read from the bytes; anything the scan declines goes through JSON.parse. */
  onMessageBytes(bytes: Buffer, start: number, end: number): void {
    if (this.settled) return;
    const { fields } = this.scratch;
    // the scan reads no text: while the text is kept (to count, or to send back as the next turn's
    // answer), chunks go through JSON.parse
    if (
      this.text === null &&
      !this.spec.collectAnswer &&
      scanChunk(bytes, start, end, this.responseId === null, fields)
    )
      this.recordChunk(fields);
    else this.onEvent('message', bytes.toString('utf8', start, end));
  }

  onEvent(event: string, data: string): void {
    if (this.settled) return;
    if (event === 'error') {
      this.fail('stream_error_event', `event: error: ${data === '' ? '(no data)' : data}`);
      return;
    }
    if (event !== 'message') return;
    if (data === '[DONE]') {
      this.sawDone = true;
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      this.fail('malformed_stream', `unparseable data: ${truncate(data, 200)}`);
      return;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      this.fail('malformed_stream', `data is not a JSON object: ${truncate(data, 200)}`);
      return;
    }
    const chunk = parsed as Record<string, unknown>;
    if (chunk.error !== undefined && chunk.error !== null) {
      this.fail('stream_error_event', `error in stream: ${describeStreamError(chunk.error)}`);
      return;
    }
    const { fields } = this.scratch;
    chunkFieldsFromJson(chunk, fields);
    if (this.text !== null) this.text += outputTextOf(chunk);
    if (this.spec.collectAnswer) this.keepAnswerText(chunk);
    this.recordChunk(fields);
  }

  /** The answer a next turn sends back: what the model said, not its reasoning. */
  private keepAnswerText(chunk: Record<string, unknown>): void {
    const piece = outputTextOf(chunk, false);
    if (this.answer.length + piece.length <= ANSWER_LIMIT_CHARS) this.answer += piece;
  }

  private producedOutput(): boolean {
    const kinds = this.scratch.kinds;
    for (let k = 0; k < this.count; k++) if (kinds[k] !== CHUNK_KIND.empty) return true;
    return false;
  }

  private recordChunk(fields: ChunkFields): void {
    // before anything is kept: an absurd count would wrap in the Int32Array and poison every rate
    const badUsage =
      (fields.completionTokens === null
        ? null
        : invalidUsageCount('completion_tokens', fields.completionTokens)) ??
      (fields.promptTokens === null ? null : invalidUsageCount('prompt_tokens', fields.promptTokens));
    if (badUsage !== null) {
      this.fail('invalid_usage', badUsage);
      return;
    }
    const kind = fields.kind;
    if (fields.finishReason !== null) this.finishReason = fields.finishReason;
    if (this.responseId === null && fields.id !== null) this.responseId = fields.id;
    let cumulative = NO_USAGE;
    if (fields.completionTokens !== null) {
      cumulative = fields.completionTokens;
      this.finalCompletionTokens = cumulative;
      // the server counts: no text is needed from here on, for this request or any later one
      this.text = null;
      this.context.outputText.wanted = false;
    }
    if (fields.promptTokens !== null) this.promptTokens = fields.promptTokens;
    const scratch = this.scratch;
    if (this.count === scratch.offsetsUs.length) scratch.grow(this.count);
    const at = this.count++;
    scratch.offsetsUs[at] = this.readUs < 0 ? 0 : this.readUs > MAX_OFFSET_US ? MAX_OFFSET_US : this.readUs;
    scratch.kinds[at] = kind;
    scratch.usage[at] = cumulative;

    const live = this.context.live;
    if (cumulative !== NO_USAGE) {
      if (cumulative > this.liveCounted) {
        live.outputTokens += cumulative - this.liveCounted;
        this.liveCounted = cumulative;
      }
    } else if (kind !== CHUNK_KIND.empty) {
      live.outputTokens++;
      this.liveCounted++;
    }
  }

  private settle(retryWithoutStreamOptions: boolean): void {
    if (this.settled) return;
    this.settled = true;
    const record = this.toRecord();
    this.context.scratch.give(this.scratch);
    const answer = this.spec.collectAnswer ? this.answer : null;
    this.onSettled?.({ record, retryWithoutStreamOptions, status: this.status, answer });
  }

  private toRecord(): RequestRecord {
    const n = this.count;
    const scratch = this.scratch;
    const { offsetsUs, tokens, kinds } = this.context.timings.take(n);
    for (let k = 0; k < n; k++) {
      offsetsUs[k] = scratch.offsetsUs[k];
      kinds[k] = scratch.kinds[k];
    }
    const { source } = attributeTokens(kinds, scratch.usage, n, this.finalCompletionTokens, tokens);
    let chunkSum = 0;
    for (let k = 0; k < n; k++) chunkSum += tokens[k];
    const startedUs = Math.round(this.startNs / 1000);
    const startUs = startedUs - CLOCK_LEAD_US;
    const record: RequestRecord = {
      index: this.identity.index,
      warmup: this.identity.warmup,
      outcome: this.outcome ?? 'error',
      scheduledUs: this.identity.scheduledUs ?? startUs,
      startUs,
      ttfbUs: this.ttfbNs === null ? null : Math.max(0, Math.round(this.ttfbNs / 1000) - startedUs),
      chunkOffsetsUs: offsetsUs,
      chunkTokens: tokens,
      chunkKinds: kinds,
      tokenSource: source,
      outputTokens: this.finalCompletionTokens ?? chunkSum,
      promptTokens: this.promptTokens,
      targetPromptTokens: this.spec.targetPromptTokens,
      responseId: this.responseId,
      finishReason: this.finishReason,
      sessionId: this.spec.sessionId,
      turnIndex: this.spec.turnIndex,
    };
    if (this.error !== null) record.error = this.error;
    if (this.text !== null && source === 'chunk' && record.outcome === 'ok') record.outputText = this.text;
    return record;
  }
}

/** The first choice's output text in a parsed chunk: content (and reasoning), or a completion's text. */
function outputTextOf(chunk: Record<string, unknown>, reasoning = true): string {
  const choices = chunk.choices;
  if (!Array.isArray(choices) || choices.length === 0) return '';
  const choice = choices[0] as { delta?: Record<string, unknown>; text?: unknown } | null;
  const delta = choice?.delta;
  const parts = reasoning ? [delta?.reasoning_content, delta?.reasoning] : [];
  let text = '';
  for (const value of [...parts, delta?.content, choice?.text]) if (typeof value === 'string') text += value;
  return text;
}
