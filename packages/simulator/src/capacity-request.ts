import {
  SLO_METRICS,
  SLO_PERCENTILES,
  SWEEP_DIMENSIONS,
  type CapacitySlo,
  type SloTarget,
} from '@teapot/run-definitions';
import type { CapacityQuestion } from './capacity-truth';
import { parseJson } from './completions';
import { ApiError } from './openai-request';

/** What POST /v1/_teapot/capacity asks; the deployment and engine settings are the live ones. */
export type LiveCapacityQuestion = Omit<CapacityQuestion, 'deployment' | 'scheduler' | 'jitter'>;

const ARRIVALS = ['poisson', 'gamma', 'constant'] as const;
/** Bounds that keep one answer to seconds of CPU on the simulator's event loop. */
const MAX_REQUESTS = 5_000;
const MAX_SEEDS = 5;

/**
 * The body of POST /v1/_teapot/capacity, checked by hand (the simulator sits below contracts):
 * `{ slo, dimension, workload: { inputTokens, outputTokens }, arrival?, lowest, highest, tolerance?,
 * requests?, seeds? }`; a 400 naming the first bad field.
 */
export function parseCapacityRequest(rawBody: Buffer, maxModelLen: number): LiveCapacityQuestion {
  const body = parseJson(rawBody);
  if (!isObject(body)) throw bad('The body must be a JSON object.', null);
  const dimension = body.dimension;
  if (!(SWEEP_DIMENSIONS as readonly unknown[]).includes(dimension))
    throw bad(`dimension must be one of ${SWEEP_DIMENSIONS.join(', ')}.`, 'dimension');
  const slo = parseSlo(body.slo);
  if (!isObject(body.workload)) throw bad('workload must be { inputTokens, outputTokens }.', 'workload');
  const inputTokens = integer(body.workload.inputTokens, 'workload.inputTokens', 0);
  const outputTokens = integer(body.workload.outputTokens, 'workload.outputTokens', 1);
  if (inputTokens + outputTokens > maxModelLen)
    throw bad(
      `workload needs ${inputTokens + outputTokens} tokens; the context is ${maxModelLen}.`,
      'workload',
    );
  const floor = dimension === 'concurrency' ? 1 : Number.MIN_VALUE;
  const lowest = positive(body.lowest, 'lowest', floor);
  const highest = positive(body.highest, 'highest', floor);
  if (!(highest > lowest)) throw bad('highest must be above lowest.', 'highest');
  const question: LiveCapacityQuestion = {
    slo,
    dimension: dimension as LiveCapacityQuestion['dimension'],
    workload: { inputTokens, outputTokens },
    lowest,
    highest,
  };
  if (body.tolerance !== undefined) {
    const tolerance = body.tolerance;
    if (typeof tolerance !== 'number' || !(tolerance >= 0.001 && tolerance <= 1))
      throw bad('tolerance must be a number in [0.001, 1].', 'tolerance');
    question.tolerance = tolerance;
  }
  if (body.requests !== undefined) question.requests = integer(body.requests, 'requests', 50, MAX_REQUESTS);
  if (body.seeds !== undefined) question.seeds = integer(body.seeds, 'seeds', 1, MAX_SEEDS);
  if (body.burstiness !== undefined && body.arrival !== 'gamma')
    throw bad('burstiness is for arrival "gamma" only.', 'burstiness');
  if (body.arrival !== undefined) {
    if (!(ARRIVALS as readonly unknown[]).includes(body.arrival))
      throw bad(`arrival must be one of ${ARRIVALS.join(', ')}.`, 'arrival');
    const arrival = body.arrival as (typeof ARRIVALS)[number];
    question.arrival =
      arrival === 'gamma'
        ? {
            arrival,
            burstiness: body.burstiness === undefined ? 1 : positive(body.burstiness, 'burstiness', 0.01),
          }
        : { arrival };
  }
  return question;
}

function parseSlo(value: unknown): CapacitySlo {
  if (!isObject(value) || !Array.isArray(value.targets) || value.targets.length === 0)
    throw bad('slo must be { targets: [{ metric, percentile, limitMs }, ...], minGoodShare? }.', 'slo');
  const targets = value.targets.map((t: unknown, i: number): SloTarget => {
    const at = `slo.targets[${i}]`;
    if (!isObject(t)) throw bad(`${at} must be { metric, percentile, limitMs }.`, at);
    if (!(SLO_METRICS as readonly unknown[]).includes(t.metric))
      throw bad(`${at}.metric must be one of ${SLO_METRICS.join(', ')}.`, `${at}.metric`);
    if (!(SLO_PERCENTILES as readonly unknown[]).includes(t.percentile))
      throw bad(`${at}.percentile must be one of ${SLO_PERCENTILES.join(', ')}.`, `${at}.percentile`);
    const limitMs = positive(t.limitMs, `${at}.limitMs`, Number.MIN_VALUE);
    return {
      metric: t.metric as SloTarget['metric'],
      percentile: t.percentile as SloTarget['percentile'],
      limitMs,
    };
  });
  const slo: CapacitySlo = { targets };
  if (typeof value.preset === 'string') slo.preset = value.preset;
  if (value.minGoodShare !== undefined) {
    const share = value.minGoodShare;
    if (typeof share !== 'number' || !(share > 0 && share <= 1))
      throw bad('slo.minGoodShare must be a number in (0, 1].', 'slo.minGoodShare');
    slo.minGoodShare = share;
  }
  return slo;
}

function integer(value: unknown, field: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw bad(`${field} must be an integer from ${min} to ${max}.`, field);
  return value;
}

function positive(value: unknown, field: string, min: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min)
    throw bad(
      `${field} must be a finite number ${min === Number.MIN_VALUE ? 'above 0' : `of at least ${min}`}.`,
      field,
    );
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function bad(message: string, field: string | null): ApiError {
  return new ApiError(400, message, field);
}
