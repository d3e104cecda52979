import { invalidRequestHeader } from './request-headers';
import { checkTraceSpeed } from './trace';
import { TRANSPORTS, type RunOptions, type Workload } from './types';

function requirePositiveInteger(name: string, value: number | undefined, allowZero = false): void {
  if (value === undefined) return;
  if (!Number.isInteger(value) || value < (allowZero ? 0 : 1)) {
    throw new RangeError(`${name} must be an integer >= ${allowZero ? 0 : 1}, got ${value}`);
  }
}

function requirePositive(name: string, value: number | undefined): void {
  if (value !== undefined && !(value > 0 && Number.isFinite(value))) {
    throw new RangeError(`${name} must be a positive number, got ${value}`);
  }
}

/** Options that cannot describe a run are the caller's bug: they throw; endpoint faults never do. */
export function validateRunOptions(options: RunOptions): URL {
  let url: URL;
  try {
    url = new URL(options.target.baseUrl);
  } catch {
    throw new TypeError(`target.baseUrl is not a URL: ${options.target.baseUrl}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`target.baseUrl must be http(s), got ${url.protocol}`);
  }
  const badHeader = invalidRequestHeader(options.target.headers ?? {});
  if (badHeader !== null) throw new TypeError(`target.headers: ${badHeader}`);
  if (options.transport !== undefined && !TRANSPORTS.includes(options.transport)) {
    throw new TypeError(
      `transport must be one of ${TRANSPORTS.join(', ')}, got ${String(options.transport)}`,
    );
  }
  // a trace ends with its last line
  if (
    options.requests === undefined &&
    options.durationS === undefined &&
    options.workload.kind !== 'trace'
  ) {
    throw new RangeError('set requests or durationS: a run needs an end (a trace ends with its last line)');
  }
  requirePositiveInteger('requests', options.requests);
  requirePositive('durationS', options.durationS);
  requirePositiveInteger('warmupRequests', options.warmupRequests, true);
  requirePositive('timeoutMs', options.timeoutMs);
  requirePositive('stallTimeoutMs', options.stallTimeoutMs);
  if (options.load.kind === 'closed') {
    requirePositiveInteger('load.concurrency', options.load.concurrency);
  } else {
    requirePositive('load.ratePerS', options.load.ratePerS);
    requirePositiveInteger('load.maxConcurrency', options.load.maxConcurrency);
    const { busyPoll } = options.load;
    if (busyPoll !== undefined && typeof busyPoll !== 'boolean')
      throw new RangeError(`load.busyPoll must be true or false, got ${String(busyPoll)}`);
    if (options.load.arrival === 'gamma') requirePositive('load.burstiness', options.load.burstiness ?? 1);
  }
  validateWorkload(options.workload);
  if (options.workload.kind === 'trace' && options.load.kind !== 'open')
    throw new RangeError(
      'a trace workload sends on its own timestamps: use an open load (its maxConcurrency caps requests in flight)',
    );
  return url;
}

function validateThinkTime(workload: { thinkTime?: { distribution: string; meanMs: number } }): void {
  const think = workload.thinkTime;
  if (think === undefined) return;
  if (think.distribution !== 'constant' && think.distribution !== 'exponential')
    throw new RangeError(
      `workload.thinkTime.distribution must be constant or exponential, got ${think.distribution}`,
    );
  if (!(think.meanMs >= 0 && Number.isFinite(think.meanMs)))
    throw new RangeError(`workload.thinkTime.meanMs must be a number >= 0, got ${think.meanMs}`);
}

function validateWorkload(workload: Workload): void {
  switch (workload.kind) {
    case 'synthetic':
      requirePositiveInteger('workload.inputTokens', workload.inputTokens);
      requirePositiveInteger('workload.outputTokens', workload.outputTokens);
      return;
    case 'dataset':
      if (workload.prompts.length === 0) throw new RangeError('workload.prompts is empty');
      return;
    case 'multi-turn':
      requirePositiveInteger('workload.turns', workload.turns);
      requirePositiveInteger('workload.inputTokens', workload.inputTokens);
      requirePositiveInteger('workload.outputTokens', workload.outputTokens);
      requirePositiveInteger('workload.systemTokens', workload.systemTokens, true);
      validateThinkTime(workload);
      return;
    case 'conversations':
      if (workload.conversations.length === 0) throw new RangeError('workload.conversations is empty');
      workload.conversations.forEach((conversation, i) => {
        if (conversation.turns.length === 0)
          throw new RangeError(`workload.conversations[${i}] has no user turn`);
      });
      validateThinkTime(workload);
      return;
    case 'shared-prefix':
      requirePositiveInteger('workload.prefixes', workload.prefixes);
      requirePositiveInteger('workload.prefixTokens', workload.prefixTokens);
      requirePositiveInteger('workload.requestsPerPrefix', workload.requestsPerPrefix);
      requirePositiveInteger('workload.suffixTokens', workload.suffixTokens);
      requirePositiveInteger('workload.outputTokens', workload.outputTokens);
      return;
    case 'trace':
      if (workload.requests.length === 0) throw new RangeError('workload.requests is empty');
      checkTraceSpeed(workload.speed ?? 1, 'workload.speed');
      return;
    default:
      throw new TypeError(`unknown workload kind ${JSON.stringify((workload as { kind: unknown }).kind)}`);
  }
}
