import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Completions } from './completions';
import { parseJson } from './completions';
import { groundTruthToJson, type GroundTruthStore } from './ground-truth';
import { header, sendJson } from './http-io';
import type { StepRecord } from './engine';
import { parseReconfiguration, type LiveDeployment } from './live-deployment';
import { ApiError } from './openai-request';
import type { CapacityAnswer } from './capacity-truth';
import { parseCapacityRequest, type LiveCapacityQuestion } from './capacity-request';

/** The side channel where benchmarks read what the simulator sent (never part of the OpenAI API). */
export const GROUND_TRUTH_PATH = '/v1/_teapot/ground-truth';
/** Read or switch the deployment served (a redeployment, for deployment verification). */
const DEPLOYMENT_PATH = '/v1/_teapot/deployment';

export interface Routes {
  completions: Completions;
  store: GroundTruthStore;
  deployment: LiveDeployment;
  modelName: string;
  maxModelLen: number;
  stats(): object;
  /** The Prometheus exposition for this Accept header. */
  metrics(accept: string | undefined): { contentType: string; body: string };
  steps(sinceNs: bigint): StepRecord[];
  capacity(question: LiveCapacityQuestion): CapacityAnswer;
}

/** Dispatches one request with its whole body read; throws ApiError for anything it refuses. */
export function route(routes: Routes, req: IncomingMessage, res: ServerResponse, rawBody: Buffer): void {
  const path = (req.url ?? '/').split('?')[0];
  const method = req.method;
  if (path === '/health' && method === 'GET') return sendJson(res, 200, { status: 'ok' });
  if (path === '/v1/models' && method === 'GET') return sendModels(res, routes);
  if (path === '/v1/chat/completions' && method === 'POST')
    return routes.completions.handle('chat', req, res, rawBody);
  if (path === '/v1/completions' && method === 'POST')
    return routes.completions.handle('completions', req, res, rawBody);
  if (path === GROUND_TRUTH_PATH && method === 'POST') return sendGroundTruthBulk(res, rawBody, routes.store);
  if (path.startsWith(GROUND_TRUTH_PATH + '/') && method === 'GET') {
    return sendGroundTruth(res, decodeURIComponent(path.slice(GROUND_TRUTH_PATH.length + 1)), routes.store);
  }
  if (path === '/v1/_teapot/stats' && method === 'GET') return sendJson(res, 200, routes.stats());
  if (path === '/metrics' && method === 'GET') return sendMetrics(res, routes.metrics(header(req, 'accept')));
  if (path === '/v1/_teapot/steps' && method === 'GET') return sendSteps(res, req, routes);
  if (path === '/v1/_teapot/capacity' && method === 'POST') {
    return sendJson(res, 200, routes.capacity(parseCapacityRequest(rawBody, routes.maxModelLen)));
  }
  if (path === DEPLOYMENT_PATH && method === 'GET') return sendJson(res, 200, routes.deployment.view());
  if (path === DEPLOYMENT_PATH && method === 'POST') {
    routes.deployment.reconfigure(parseReconfiguration(rawBody));
    return sendJson(res, 200, routes.deployment.view());
  }
  throw new ApiError(404, `No route ${method} ${path}.`, null, 'NotFoundError', 404);
}

function sendMetrics(res: ServerResponse, exposition: { contentType: string; body: string }): void {
  res.writeHead(200, { 'content-type': exposition.contentType });
  res.end(exposition.body);
}

/** `?since=NS` (decimal, process.hrtime.bigint()'s clock): the steps that ended after it, ns as strings. */
function sendSteps(res: ServerResponse, req: IncomingMessage, routes: Routes): void {
  const since = new URL(req.url ?? '/', 'http://simulator').searchParams.get('since') ?? '0';
  if (!/^\d{1,20}$/.test(since)) throw new ApiError(400, '`since` must be a decimal count of ns.', 'since');
  const data = routes.steps(BigInt(since)).map((step) => ({
    ...step,
    startNs: step.startNs.toString(),
    endNs: step.endNs.toString(),
  }));
  sendJson(res, 200, { object: 'list', data });
}

function sendModels(res: ServerResponse, routes: Routes): void {
  sendJson(res, 200, {
    object: 'list',
    data: [
      {
        id: routes.modelName,
        object: 'model',
        created: 0,
        owned_by: 'teapot',
        max_model_len: routes.maxModelLen,
      },
    ],
  });
}

function sendGroundTruth(res: ServerResponse, responseId: string, store: GroundTruthStore): void {
  const trace = store.get(responseId);
  if (!trace) {
    throw new ApiError(
      404,
      'No ground truth for that response id (unknown or evicted).',
      'id',
      'NotFoundError',
      404,
    );
  }
  sendJson(res, 200, groundTruthToJson(trace.toGroundTruth()));
}

function sendGroundTruthBulk(res: ServerResponse, rawBody: Buffer, store: GroundTruthStore): void {
  const body = parseJson(rawBody);
  const ids = typeof body === 'object' && body !== null ? (body as { ids?: unknown }).ids : undefined;
  if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) {
    throw new ApiError(400, '`ids` must be an array of response ids.', 'ids');
  }
  const data = ids.map((id: string) => {
    const trace = store.get(id);
    return trace ? groundTruthToJson(trace.toGroundTruth()) : null;
  });
  sendJson(res, 200, { object: 'list', data });
}
