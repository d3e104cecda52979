import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { CompletionResponse } from './completion-response';
import { Engine, type EngineStats } from './engine';
import { FaultHeaderError, planFault, type FaultOptions } from './faults';
import {
  DEFAULT_GROUND_TRUTH_LIMITS,
  GroundTruthStore,
  ResponseTrace,
  groundTruthToJson,
  type GroundTruth,
  type GroundTruthLimits,
} from './ground-truth';
import {
  DeploymentError,
  decodeStepTimeS,
  describeDeployment,
  resolveDeployment,
  type Deployment,
  type DeploymentInput,
} from './latency-model';
import { ApiError, parseCompletionRequest, type ApiKind } from './openai-request';
import {
  GPU_PRESETS,
  KV_CACHE_DTYPES,
  WEIGHT_QUANTS,
  type GpuName,
  type KvCacheDtype,
  type WeightQuant,
} from './presets';
import { deriveSeed, geometricLength, seededRandom } from './rng';
import { VOCABULARY } from './vocabulary';

/** Deployment fields (gpu, model, quant, kvCacheDtype, tp, latency) default to llama-8b fp16 on one H100 SXM. */
export interface SimulatorOptions extends DeploymentInput {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Running sequences per step (default 256). */
  maxBatch?: number;
  /** Default false: a new prompt's prefill stalls every running stream for one step. */
  chunkedPrefill?: boolean;
  /** Prompt tokens prefilled per step with chunked prefill (default 512). */
  chunkSize?: number;
  /** Prompt tokens per prefill step without chunked prefill (default 8192, at least one whole prompt). */
  maxPrefillTokens?: number;
  /** Tokens bundled per SSE chunk (default 1). */
  tokensPerChunk?: number;
  /** Sigma of the lognormal step-time jitter (default 0.03). */
  jitter?: number;
  /** Seed of every random choice (default 1). */
  seed?: number;
  /** Mean output length when a request stops at its seeded EOS (default 256). */
  meanOutputTokens?: number;
  /** Context window (default: the model's). */
  maxModelLen?: number;
  /** The name served in /v1/models and expected in `model` (default the model preset's name). */
  servedModelName?: string;
  fault?: FaultOptions;
  groundTruthLimits?: Partial<GroundTruthLimits>;
  /** The engine loop spins for the last spinUs before each step (default 1000; 0 = timers only). */
  spinUs?: number;
  /** When the loop falls this far behind its schedule (a GC pause, a suspended machine) it restarts the schedule from now instead of catching up in a burst (default 50). */
  maxLagMs?: number;
}

export interface SimulatorStats {
  deployment: string;
  /** Modelled decode step at batch 1 and a 1-token context, ms. */
  singleStreamMsPerToken: number;
  openResponses: number;
  groundTruthResponses: number;
  engine: EngineStats;
}

/** What a redeployment may change on a running simulator (the model and its served name stay). */
export interface SimulatorReconfiguration {
  gpu?: GpuName;
  quant?: WeightQuant;
  kvCacheDtype?: KvCacheDtype;
  tp?: number;
  chunkedPrefill?: boolean;
}

export interface RunningSimulator {
  /** "http://127.0.0.1:PORT/v1" */
  baseUrl: string;
  port: number;
  /** The deployment served now. */
  readonly deployment: Deployment;
  /**
   * Switches to another configuration from the next engine step on, as redeploying the endpoint
   * would (also `POST /v1/_teapot/deployment`). Throws DeploymentError when it cannot be served.
   */
  reconfigure(change: SimulatorReconfiguration): SimulatorStats;
  groundTruth(responseId: string): GroundTruth | undefined;
  stats(): SimulatorStats;
  /** Close the listener: new connections get ECONNREFUSED; open streams carry on. */
  stopAccepting(): Promise<void>;
  /** Listen again on the same port. */
  resumeAccepting(): Promise<void>;
  /** Ends every open stream and connection and stops the server. */
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 8 * 1024 * 1024;
const GROUND_TRUTH_PATH = '/v1/_teapot/ground-truth';
const DEPLOYMENT_PATH = '/v1/_teapot/deployment';
const RECONFIGURABLE = ['gpu', 'quant', 'kvCacheDtype', 'tp', 'chunkedPrefill'] as const;

export { DeploymentError };

export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  let deployment = resolveDeployment(options);
  let deploymentInput: DeploymentInput = options;
  let chunkedPrefill = options.chunkedPrefill ?? false;
  const settings = resolveSettings(options, deployment);
  const modelName = options.servedModelName ?? deployment.model.name;
  const seed = options.seed ?? 1;
  const faultRandom = seededRandom(deriveSeed(seed, -2));
  const engine = new Engine({
    deployment,
    maxBatch: settings.maxBatch,
    chunkedPrefill,
    chunkSize: settings.chunkSize,
    maxPrefillTokens: settings.maxPrefillTokens,
    jitter: settings.jitter,
    random: seededRandom(deriveSeed(seed, -1)),
    spinNs: BigInt(Math.round((options.spinUs ?? 1000) * 1000)),
    maxLagNs: BigInt(Math.round((options.maxLagMs ?? 50) * 1e6)),
  });
  const store = new GroundTruthStore({ ...DEFAULT_GROUND_TRUTH_LIMITS, ...options.groundTruthLimits });
  const open = new Set<CompletionResponse>();
  const sockets = new Set<Socket>();
  let requestIndex = 0;
  let closed = false;

  const handleCompletion = (
    api: ApiKind,
    req: IncomingMessage,
    res: ServerResponse,
    rawBody: Buffer,
  ): void => {
    const arrivedNs = process.hrtime.bigint();
    const index = requestIndex++;
    const id = `${api === 'chat' ? 'chatcmpl' : 'cmpl'}-${randomBytes(12).toString('hex')}`;
    res.setHeader('x-teapot-response-id', id);
    let body: unknown;
    try {
      body = JSON.parse(rawBody.toString('utf8'));
    } catch {
      throw new ApiError(400, 'The request body is not valid JSON.');
    }
    const fault = planFault(
      header(req, 'x-teapot-fault'),
      header(req, 'x-teapot-fault-after'),
      options.fault,
      faultRandom,
    );
    const hasStreamOptions = typeof body === 'object' && body !== null && 'stream_options' in body;
    const rejectStreamOptions = fault?.mode === 'reject-stream-options';
    if (rejectStreamOptions && hasStreamOptions) {
      const trace = new ResponseTrace(id, modelName, 0, api, false, arrivedNs, 1);
      trace.fault = { mode: fault.mode, afterTokens: 0, firedNs: process.hrtime.bigint() };
      trace.status = 400;
      store.add(trace);
      throw new ApiError(
        400,
        "[{'type': 'extra_forbidden', 'loc': ('body', 'stream_options'), 'msg': 'Extra inputs are not permitted'}]",
        'stream_options',
        'BadRequestError',
        400,
      );
    }
    const request = parseCompletionRequest(api, body, settings.maxModelLen);
    if (request.model !== undefined && request.model !== modelName) {
      throw new ApiError(
        404,
        `The model \`${request.model}\` does not exist.`,
        'model',
        'NotFoundError',
        404,
      );
    }
    const random = seededRandom(deriveSeed(seed, index));
    const naturalLength = Math.max(geometricLength(random, settings.meanOutputTokens), request.minTokens);
    const stopsAtEos = !request.ignoreEos && naturalLength <= request.maxTokens;
    const outputTokens = stopsAtEos ? naturalLength : request.maxTokens;
    const expectedEvents = request.stream ? Math.ceil(outputTokens / settings.tokensPerChunk) + 3 : 1;
    const trace = new ResponseTrace(
      id,
      modelName,
      request.promptTokens,
      api,
      request.stream,
      arrivedNs,
      expectedEvents,
    );
    if (fault) trace.fault = { mode: fault.mode, afterTokens: fault.afterTokens, firedNs: null };
    store.add(trace);

    if (
      fault &&
      !rejectStreamOptions &&
      answerBeforeTokens(fault.mode, res, trace, req, options.fault?.retryAfterS)
    ) {
      return;
    }
    const response = new CompletionResponse(
      res,
      {
        request,
        trace,
        outputTokens,
        finishReason: stopsAtEos ? 'stop' : 'length',
        wordOffset: Math.floor(random() * VOCABULARY.length),
        tokensPerChunk: settings.tokensPerChunk,
        createdS: Math.floor(Date.now() / 1000),
        fault: rejectStreamOptions ? null : fault,
      },
      () => open.delete(response),
    );
    open.add(response);
    response.begin();
    response.engine = engine.submit({
      promptTokens: request.promptTokens,
      outputTokens,
      onToken: response.onToken,
    });
  };

  const route = (req: IncomingMessage, res: ServerResponse, rawBody: Buffer): void => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/health' && req.method === 'GET') return sendJson(res, 200, { status: 'ok' });
    if (path === '/v1/models' && req.method === 'GET') {
      return sendJson(res, 200, {
        object: 'list',
        data: [
          {
            id: modelName,
            object: 'model',
            created: 0,
            owned_by: 'teapot',
            max_model_len: settings.maxModelLen,
          },
        ],
      });
    }
    if (path === '/v1/chat/completions' && req.method === 'POST')
      return handleCompletion('chat', req, res, rawBody);
    if (path === '/v1/completions' && req.method === 'POST')
      return handleCompletion('completions', req, res, rawBody);
    if (path === GROUND_TRUTH_PATH && req.method === 'POST') return sendGroundTruthBulk(res, rawBody, store);
    if (path.startsWith(GROUND_TRUTH_PATH + '/') && req.method === 'GET') {
      const trace = store.get(decodeURIComponent(path.slice(GROUND_TRUTH_PATH.length + 1)));
      if (!trace)
        throw new ApiError(
          404,
          'No ground truth for that response id (unknown or evicted).',
          'id',
          'NotFoundError',
          404,
        );
      return sendJson(res, 200, groundTruthToJson(trace.toGroundTruth()));
    }
    if (path === '/v1/_teapot/stats' && req.method === 'GET') return sendJson(res, 200, stats());
    if (path === DEPLOYMENT_PATH && req.method === 'GET') return sendJson(res, 200, deploymentView());
    if (path === DEPLOYMENT_PATH && req.method === 'POST') {
      reconfigure(parseReconfiguration(rawBody));
      return sendJson(res, 200, deploymentView());
    }
    throw new ApiError(404, `No route ${req.method} ${path}.`, null, 'NotFoundError', 404);
  };

  const server = createServer({ noDelay: true, keepAlive: true }, (req, res) => {
    readBody(req)
      .then((rawBody) => route(req, res, rawBody))
      .catch((error: unknown) => sendError(res, error));
  });
  server.keepAliveTimeout = 30_000;
  server.on('connection', (socket: Socket) => {
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  const listen = (port: number): Promise<void> =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, options.host ?? '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  await listen(options.port ?? 0);
  const port = (server.address() as AddressInfo).port;
  const host = options.host ?? '127.0.0.1';
  let listening = true;

  function reconfigure(change: SimulatorReconfiguration): SimulatorStats {
    const { chunkedPrefill: nextChunked, ...fields } = change;
    const input = { ...deploymentInput, ...fields };
    const next = resolveDeployment(input);
    deployment = next;
    deploymentInput = input;
    chunkedPrefill = nextChunked ?? chunkedPrefill;
    engine.reconfigure({ deployment, chunkedPrefill });
    return stats();
  }

  function deploymentView(): object {
    return {
      gpu: deployment.gpu.name,
      model: deployment.model.name,
      quant: deployment.quant,
      kvCacheDtype: deployment.kvCacheDtype,
      tp: deployment.tp,
      chunkedPrefill,
      description: describeDeployment(deployment),
      singleStreamMsPerToken: decodeStepTimeS(deployment, 1, 1) * 1e3,
    };
  }

  function stats(): SimulatorStats {
    return {
      deployment: describeDeployment(deployment),
      singleStreamMsPerToken: decodeStepTimeS(deployment, 1, 1) * 1e3,
      openResponses: open.size,
      groundTruthResponses: store.size,
      engine: engine.stats(),
    };
  }

  return {
    baseUrl: `http://${host.includes(':') ? `[${host}]` : host}:${port}/v1`,
    port,
    get deployment() {
      return deployment;
    },
    reconfigure,
    groundTruth: (responseId) => store.get(responseId)?.toGroundTruth(),
    stats,
    stopAccepting: async () => {
      if (!listening) return;
      listening = false;
      server.close();
    },
    resumeAccepting: async () => {
      if (listening || closed) return;
      await listen(port);
      listening = true;
    },
    close: async () => {
      if (closed) return;
      closed = true;
      engine.close();
      for (const response of [...open]) response.finish();
      const done = new Promise<void>((resolve) => {
        if (!listening) return resolve();
        server.close(() => resolve());
      });
      listening = false;
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      await done;
    },
  };
}

interface Settings {
  maxBatch: number;
  chunkSize: number;
  maxPrefillTokens: number;
  tokensPerChunk: number;
  jitter: number;
  meanOutputTokens: number;
  maxModelLen: number;
}

function resolveSettings(options: SimulatorOptions, deployment: Deployment): Settings {
  const settings: Settings = {
    maxBatch: options.maxBatch ?? 256,
    chunkSize: options.chunkSize ?? 512,
    maxPrefillTokens: options.maxPrefillTokens ?? 8192,
    tokensPerChunk: options.tokensPerChunk ?? 1,
    jitter: options.jitter ?? 0.03,
    meanOutputTokens: options.meanOutputTokens ?? 256,
    maxModelLen: options.maxModelLen ?? deployment.model.contextLength,
  };
  for (const key of ['maxBatch', 'chunkSize', 'maxPrefillTokens', 'tokensPerChunk', 'maxModelLen'] as const) {
    if (!Number.isInteger(settings[key]) || settings[key] < 1) {
      throw new DeploymentError(`${key} must be a positive integer, got ${settings[key]}`);
    }
  }
  if (!(settings.jitter >= 0 && settings.jitter <= 1)) {
    throw new DeploymentError(`jitter must be between 0 and 1, got ${settings.jitter}`);
  }
  if (!(settings.meanOutputTokens >= 1)) {
    throw new DeploymentError(`meanOutputTokens must be at least 1, got ${settings.meanOutputTokens}`);
  }
  const rate = options.fault?.rate ?? 1;
  if (!(rate >= 0 && rate <= 1)) throw new DeploymentError(`fault rate must be between 0 and 1, got ${rate}`);
  return settings;
}

/** Faults that answer before any token. Returns true when the request was answered. */
function answerBeforeTokens(
  mode: string,
  res: ServerResponse,
  trace: ResponseTrace,
  req: IncomingMessage,
  retryAfterS = 1,
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
      res.setHeader('retry-after', String(retryAfterS));
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

function sendGroundTruthBulk(res: ServerResponse, rawBody: Buffer, store: GroundTruthStore): void {
  let ids: unknown;
  try {
    ids = (JSON.parse(rawBody.toString('utf8')) as { ids?: unknown }).ids;
  } catch {
    throw new ApiError(400, 'The request body is not valid JSON.');
  }
  if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) {
    throw new ApiError(400, '`ids` must be an array of response ids.', 'ids');
  }
  const data = ids.map((id: string) => {
    const trace = store.get(id);
    return trace ? groundTruthToJson(trace.toGroundTruth()) : null;
  });
  sendJson(res, 200, { object: 'list', data });
}

/** The body of POST /v1/_teapot/deployment; a 400 for anything it cannot serve. */
function parseReconfiguration(rawBody: Buffer): SimulatorReconfiguration {
  let body: unknown;
  try {
    body = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw new ApiError(400, 'The request body is not valid JSON.');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ApiError(400, `The body must be an object with any of ${RECONFIGURABLE.join(', ')}.`);
  }
  const change = body as Record<string, unknown>;
  for (const key of Object.keys(change)) {
    if (!(RECONFIGURABLE as readonly string[]).includes(key))
      throw new ApiError(400, `${key} cannot be changed; use any of ${RECONFIGURABLE.join(', ')}.`, key);
  }
  const text = (key: string, allowed: readonly string[]): void => {
    if (change[key] !== undefined && !allowed.includes(change[key] as string))
      throw new ApiError(400, `${key} must be one of ${allowed.join(', ')}.`, key);
  };
  text('gpu', Object.keys(GPU_PRESETS));
  text('quant', WEIGHT_QUANTS);
  text('kvCacheDtype', KV_CACHE_DTYPES);
  if (change.tp !== undefined && !(Number.isInteger(change.tp) && (change.tp as number) >= 1))
    throw new ApiError(400, 'tp must be a positive integer.', 'tp');
  if (change.chunkedPrefill !== undefined && typeof change.chunkedPrefill !== 'boolean')
    throw new ApiError(400, 'chunkedPrefill must be true or false.', 'chunkedPrefill');
  return change as SimulatorReconfiguration;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new ApiError(413, `The request body exceeds ${MAX_BODY_BYTES} bytes.`));
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function errorBody(
  message: string,
  type: string,
  param: string | null,
  code: string | number | null,
): object {
  return { error: { message, type, param, code } };
}

function sendError(res: ServerResponse, error: unknown): void {
  if (res.headersSent || res.destroyed) {
    res.destroy();
    return;
  }
  if (error instanceof ApiError) {
    return sendJson(res, error.status, errorBody(error.message, error.type, error.param, error.code));
  }
  if (error instanceof DeploymentError) {
    return sendJson(res, 400, errorBody(error.message, 'invalid_request_error', null, null));
  }
  if (error instanceof FaultHeaderError) {
    return sendJson(res, 400, errorBody(error.message, 'invalid_request_error', error.header, null));
  }
  const message = error instanceof Error ? error.message : String(error);
  sendJson(res, 500, errorBody(`simulator bug: ${message}`, 'InternalServerError', null, 500));
}

function sendJson(res: ServerResponse, status: number, body: object): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
