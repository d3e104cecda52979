import type { ServerResponse } from 'node:http';
import type { SequenceHandle } from './engine';
import { MID_STREAM_FAULTS, type FaultPlan } from './faults';
import type { GroundTruthEventKind, ResponseTrace } from './ground-truth';
import type { ResponseMetrics } from './metrics';
import type { CompletionRequest } from './openai-request';
import { tokenText, type OutputVocabulary } from './vocabulary';

export interface ResponsePlan {
  request: CompletionRequest;
  trace: ResponseTrace;
  /** Output tokens this response will carry (EOS or max_tokens). */
  outputTokens: number;
  finishReason: 'stop' | 'length';
  /** Start of this response's deterministic word sequence. */
  wordOffset: number;
  vocabulary: OutputVocabulary;
  tokensPerChunk: number;
  createdS: number;
  fault: FaultPlan | null;
  /** The server's own latency histograms (GET /metrics). */
  metrics: ResponseMetrics;
}

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
};

/**
 * One completion response, streamed or not: turns the engine's tokens into OpenAI/vLLM-shaped output,
 * applies a mid-stream fault when one is planned, and records every event it writes in the trace.
 */
export class CompletionResponse {
  private readonly prefix: string;
  private readonly faultAt: number;
  private written = 0;
  private faultFired = false;
  private ended = false;
  /** A stalled response writes nothing more but stays open. */
  private stalled = false;
  engine: SequenceHandle | null = null;

  constructor(
    private readonly res: ServerResponse,
    private readonly plan: ResponsePlan,
    private readonly onEnd: () => void,
  ) {
    const { trace, request } = plan;
    const object = request.api === 'chat' ? 'chat.completion.chunk' : 'text_completion';
    this.prefix = `{"id":${JSON.stringify(trace.id)},"object":"${object}","created":${plan.createdS},"model":${JSON.stringify(trace.model)},"choices":[`;
    const midStream = plan.fault !== null && MID_STREAM_FAULTS.has(plan.fault.mode);
    this.faultAt = midStream ? Math.min(plan.fault?.afterTokens ?? 0, plan.outputTokens - 1) : Infinity;
    res.on('close', () => {
      if (!this.ended) this.finish();
    });
  }

  /** Headers and, for chat, the role-only first chunk: written when the request arrives, as OpenAI does. */
  begin(): void {
    if (!this.plan.request.stream) return;
    this.res.writeHead(200, SSE_HEADERS);
    if (this.plan.request.api === 'chat') {
      const choice =
        '{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]';
      this.writeEvent('role', 0, this.chunk(choice, 0), this.plan.trace.arrivedNs);
    } else {
      this.res.flushHeaders();
    }
  }

  /** The engine produced this response's `generated`-th token at the end of a step. */
  readonly onToken = (generated: number, scheduledNs: bigint, finished: boolean): void => {
    if (this.ended || this.stalled) return;
    if (generated > this.faultAt && !this.faultFired) {
      this.flushTokens(this.faultAt, scheduledNs, false);
      this.fireFault(scheduledNs);
      if (this.ended || this.stalled) return;
    }
    if (!this.plan.request.stream) {
      if (finished) this.endJson(scheduledNs);
      return;
    }
    if (finished || generated - this.written >= this.plan.tokensPerChunk)
      this.flushTokens(generated, scheduledNs, finished);
    if (finished) this.endStream(scheduledNs);
  };

  /** Ends the response now (client gone, or the simulator closing). */
  finish(): void {
    if (this.ended) return;
    this.ended = true;
    this.plan.metrics.end(this.plan.trace.complete ? this.plan.finishReason : 'abort');
    this.engine?.cancel();
    this.onEnd();
  }

  private flushTokens(upTo: number, scheduledNs: bigint, last: boolean): void {
    const count = upTo - this.written;
    if (count <= 0 || !this.plan.request.stream) return;
    const start = this.plan.wordOffset + this.written * 7;
    const text = JSON.stringify(tokenText(start, count, this.written === 0, this.plan.vocabulary));
    const finishReason = last ? `"${this.plan.finishReason}"` : 'null';
    const choice =
      this.plan.request.api === 'chat'
        ? `{"index":0,"delta":{"content":${text}},"logprobs":null,"finish_reason":${finishReason}}]`
        : `{"index":0,"text":${text},"logprobs":null,"finish_reason":${finishReason},"stop_reason":null}]`;
    this.written = upTo;
    this.writeEvent('content', count, this.chunk(choice, upTo), scheduledNs);
  }

  private endStream(scheduledNs: bigint): void {
    const { request, trace } = this.plan;
    if (request.includeUsage) {
      const json = `${this.prefix}],"usage":${usage(trace.promptTokens, this.written)}}`;
      this.writeEvent('usage', 0, `data: ${json}\n\n`, scheduledNs);
    }
    trace.finishReason = this.plan.finishReason;
    trace.complete = true;
    this.res.end('data: [DONE]\n\n');
    this.finish();
  }

  private endJson(scheduledNs: bigint): void {
    const { request, trace, outputTokens } = this.plan;
    const text = tokenText(this.plan.wordOffset, outputTokens, true, this.plan.vocabulary);
    const choice =
      request.api === 'chat'
        ? {
            index: 0,
            message: { role: 'assistant', content: text },
            logprobs: null,
            finish_reason: this.plan.finishReason,
          }
        : { index: 0, text, logprobs: null, finish_reason: this.plan.finishReason, stop_reason: null };
    const body = JSON.stringify({
      id: trace.id,
      object: request.api === 'chat' ? 'chat.completion' : 'text_completion',
      created: this.plan.createdS,
      model: trace.model,
      choices: [choice],
      usage: {
        prompt_tokens: trace.promptTokens,
        completion_tokens: outputTokens,
        total_tokens: trace.promptTokens + outputTokens,
      },
    });
    trace.finishReason = this.plan.finishReason;
    trace.complete = true;
    this.endWithBody(200, 'content', outputTokens, body, scheduledNs);
  }

  /** A non-streamed response's one body, recorded as one event. */
  private endWithBody(
    status: number,
    kind: GroundTruthEventKind,
    tokens: number,
    body: string,
    scheduledNs: bigint,
  ): void {
    const { trace } = this.plan;
    trace.status = status;
    this.res.writeHead(status, { 'content-type': 'application/json' });
    const writeStartNs = process.hrtime.bigint();
    this.res.end(body);
    const writtenNs = process.hrtime.bigint();
    trace.record(kind, tokens, scheduledNs, writeStartNs, writtenNs);
    if (kind === 'content') this.plan.metrics.output(tokens, writtenNs);
    this.finish();
  }

  private fireFault(scheduledNs: bigint): void {
    const { fault, trace, request } = this.plan;
    if (!fault || !trace.fault) return;
    this.faultFired = true;
    trace.fault.firedNs = process.hrtime.bigint();
    const broken = `data: ${this.prefix}{"index":0,"delta":{"content":" brok\n\n`;
    switch (fault.mode) {
      case 'stall':
        this.stalled = true;
        this.engine?.cancel();
        return;
      case 'malformed':
        if (request.stream) {
          this.writeEvent('error', 0, broken, scheduledNs);
          return;
        }
        this.endWithBody(200, 'error', 0, broken.slice('data: '.length), scheduledNs);
        return;
      case 'truncate':
        if (!request.stream) {
          this.res.writeHead(200, { 'content-type': 'application/json', 'content-length': '4096' });
          this.res.write('{"id":');
          this.res.socket?.uncork();
          this.res.destroy();
        } else {
          this.res.end();
        }
        this.finish();
        return;
      case 'error-event': {
        const error =
          '{"error":{"message":"simulated engine error mid-stream","type":"InternalServerError","param":null,"code":500}}';
        if (!request.stream) {
          this.endWithBody(500, 'error', 0, error, scheduledNs);
          return;
        }
        this.writeEvent('error', 0, `event: error\ndata: ${error}\n\n`, scheduledNs);
        this.res.end();
        this.finish();
        return;
      }
      default:
        return;
    }
  }

  private chunk(choice: string, completionTokens: number): string {
    const { request, trace } = this.plan;
    const usageField = request.continuousUsage
      ? `,"usage":${usage(trace.promptTokens, completionTokens)}`
      : '';
    return `data: ${this.prefix}${choice}${usageField}}\n\n`;
  }

  /**
   * One SSE event, one res.write. Node corks the socket inside res.write until the next tick; the
   * uncork sends the bytes now, so writtenNs (taken right after) is when the kernel had them. The
   * write syscall can wake the reader and lose the CPU to it, so writeStartNs brackets it from below.
   */
  private writeEvent(kind: GroundTruthEventKind, tokens: number, data: string, scheduledNs: bigint): void {
    const writeStartNs = process.hrtime.bigint();
    this.res.write(data);
    this.res.socket?.uncork();
    const writtenNs = process.hrtime.bigint();
    this.plan.trace.record(kind, tokens, scheduledNs, writeStartNs, writtenNs);
    if (kind === 'content') this.plan.metrics.output(tokens, writtenNs);
  }
}

function usage(promptTokens: number, completionTokens: number): string {
  return `{"prompt_tokens":${promptTokens},"completion_tokens":${completionTokens},"total_tokens":${promptTokens + completionTokens}}`;
}
