import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CompletionResponse } from './completion-response';
import type { Engine } from './engine';
import { planFault, type FaultOptions, type FaultPlan } from './faults';
import { ResponseTrace, type GroundTruthStore } from './ground-truth';
import { errorBody, header, sendJson } from './http-io';
import { ApiError, parseCompletionRequest, type ApiKind, type CompletionRequest } from './openai-request';
import { mulberry32 } from '@teapot/random';
import { deriveSeed, geometricLength } from './rng';
import type { ServerMetrics } from './metrics';
import { promptBlockHashes } from './block-pool';
import { promptAcceptance, promptReader, promptTokenIds, type PromptReader } from './prompt-tokens';
import type { Settings } from './settings';

export interface CompletionsOptions {
  engine: Engine;
  store: GroundTruthStore;
  settings: Settings;
  modelName: string;
  /** Seed of every random choice; request `i` draws from its own stream. */
  seed: number;
  fault?: FaultOptions;
  metrics: ServerMetrics;
}

/**
 * Answers `/v1/chat/completions` and `/v1/completions`: validates the request as vLLM does, plans
 * its output length and fault from the seed and the fault headers, records its ground truth, then
 * streams the tokens the engine produces (or answers the fault).
 */
export class Completions {
  /** Responses still streaming, ended by finishAll() on close. */
  private readonly open = new Set<CompletionResponse>();
  private readonly faultRandom: () => number;
  private requestIndex = 0;

  constructor(private readonly options: CompletionsOptions) {
    this.faultRandom = mulberry32(deriveSeed(options.seed, -2));
  }

  get openResponses(): number {
    return this.open.size;
  }

  finishAll(): void {
    for (const response of [...this.open]) response.finish();
  }

  handle(api: ApiKind, req: IncomingMessage, res: ServerResponse, rawBody: Buffer): void {
    const arrivedNs = process.hrtime.bigint();
    const index = this.requestIndex++;
    const id = `${api === 'chat' ? 'chatcmpl' : 'cmpl'}-${randomBytes(12).toString('hex')}`;
    res.setHeader('x-teapot-response-id', id);
    const body = parseJson(rawBody);
    const fault = planFault(
      header(req, 'x-teapot-fault'),
      header(req, 'x-teapot-fault-after'),
      this.options.fault,
      this.faultRandom,
    );
    const rejectStreamOptions = fault?.mode === 'reject-stream-options';
    if (rejectStreamOptions && typeof body === 'object' && body !== null && 'stream_options' in body) {
      this.refuseStreamOptions(id, api, arrivedNs);
    }
    const { maxModelLen, vocabulary } = this.options.settings;
    const reader = promptReader(vocabulary);
    const request = parseCompletionRequest(api, body, maxModelLen, reader.count);
    if (request.model !== undefined && request.model !== this.options.modelName) {
      throw new ApiError(
        404,
        `The model \`${request.model}\` does not exist.`,
        'model',
        'NotFoundError',
        404,
      );
    }
    const random = mulberry32(deriveSeed(this.options.seed, index));
    const { outputTokens, stopsAtEos } = this.outputLength(request, random);
    const trace = new ResponseTrace(
      id,
      this.options.modelName,
      request.promptTokens,
      api,
      request.stream,
      arrivedNs,
      request.stream ? Math.ceil(outputTokens / this.options.settings.tokensPerChunk) + 3 : 1,
    );
    if (fault) trace.fault = { mode: fault.mode, afterTokens: fault.afterTokens, firedNs: null };
    this.options.store.add(trace);
    if (fault && !rejectStreamOptions && this.answerBeforeTokens(fault.mode, res, trace, req)) return;
    this.stream(res, request, trace, {
      outputTokens,
      stopsAtEos,
      wordOffset: Math.floor(random() * vocabulary.words.length),
      fault: rejectStreamOptions ? null : fault,
      ...this.mechanisms(api, body as Record<string, unknown>, trace, reader),
    });
  }

  /** What prefix caching and speculative decoding read from the prompt, when either is on. */
  private mechanisms(
    api: ApiKind,
    body: Record<string, unknown>,
    trace: ResponseTrace,
    reader: PromptReader,
  ): { promptBlockHashes?: number[]; draftAcceptance?: number } {
    const { prefixCaching, speculativeTokens, draftAcceptance } = this.options.settings;
    if (!prefixCaching && speculativeTokens === 0) return {};
    const ids = promptTokenIds(api, body, reader.ids);
    if (speculativeTokens > 0)
      trace.serving.draftAcceptance = promptAcceptance(ids, this.options.seed, draftAcceptance);
    return {
      promptBlockHashes: prefixCaching ? promptBlockHashes(ids) : undefined,
      draftAcceptance: trace.serving.draftAcceptance ?? undefined,
    };
  }

  /** The `reject-stream-options` fault: vLLM versions that refuse `stream_options` answer 400 like this. */
  private refuseStreamOptions(id: string, api: ApiKind, arrivedNs: bigint): never {
    const trace = new ResponseTrace(id, this.options.modelName, 0, api, false, arrivedNs, 1);
    trace.fault = { mode: 'reject-stream-options', afterTokens: 0, firedNs: process.hrtime.bigint() };
    trace.status = 400;
    this.options.store.add(trace);
    throw new ApiError(
      400,
      "[{'type': 'extra_forbidden', 'loc': ('body', 'stream_options'), 'msg': 'Extra inputs are not permitted'}]",
      'stream_options',
      'BadRequestError',
      400,
    );
  }

  /** A seeded geometric length (stopping at EOS), at least min_tokens; max_tokens when EOS is ignored or later. */
  private outputLength(
    request: CompletionRequest,
    random: () => number,
  ): { outputTokens: number; stopsAtEos: boolean } {
    const naturalLength = Math.max(
      geometricLength(random, this.options.settings.meanOutputTokens),
      request.minTokens,
    );
    const stopsAtEos = !request.ignoreEos && naturalLength <= request.maxTokens;
    return { outputTokens: stopsAtEos ? naturalLength : request.maxTokens, stopsAtEos };
  }

  /** Faults that answer before any token. Returns true when the request was answered. */
  private answerBeforeTokens(
    mode: string,
    res: ServerResponse,
    trace: ResponseTrace,
    req: IncomingMessage,
  ): boolean {
    const fired = (status: number): void => {
      trace.status = status;
      if (trace.fault) trace.fault.firedNs = process.hrtime.bigint();
    };
    switch (mode) {
      case 'refuse':
        fired(0);
        req.socket.destroy();
        return true;
      case '500':
        fired(500);
        sendJson(res, 500, errorBody('simulated internal server error', 'InternalServerError', null, 500));
        return true;
      case '429':
        fired(429);
        res.setHeader('retry-after', String(this.options.fault?.retryAfterS ?? 1));
        sendJson(
          res,
          429,
          errorBody('simulated rate limit: retry later', 'rate_limit_error', null, 'rate_limit_exceeded'),
        );
        return true;
      default:
        return false;
    }
  }

  private stream(
    res: ServerResponse,
    request: CompletionRequest,
    trace: ResponseTrace,
    plan: {
      outputTokens: number;
      stopsAtEos: boolean;
      wordOffset: number;
      fault: FaultPlan | null;
      promptBlockHashes?: number[];
      draftAcceptance?: number;
    },
  ): void {
    const response = new CompletionResponse(
      res,
      {
        request,
        trace,
        outputTokens: plan.outputTokens,
        finishReason: plan.stopsAtEos ? 'stop' : 'length',
        wordOffset: plan.wordOffset,
        vocabulary: this.options.settings.vocabulary,
        tokensPerChunk: this.options.settings.tokensPerChunk,
        createdS: Math.floor(Date.now() / 1000),
        fault: plan.fault,
        metrics: this.options.metrics.response(trace.arrivedNs),
      },
      () => this.open.delete(response),
    );
    this.open.add(response);
    response.begin();
    response.engine = this.options.engine.submit({
      promptTokens: request.promptTokens,
      outputTokens: plan.outputTokens,
      promptBlockHashes: plan.promptBlockHashes,
      draftAcceptance: plan.draftAcceptance,
      tally: trace.serving,
      onToken: response.onToken,
    });
  }
}

/** The request body as JSON, or a 400 saying it is not. */
export function parseJson(rawBody: Buffer): unknown {
  try {
    return JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw new ApiError(400, 'The request body is not valid JSON.');
  }
}
