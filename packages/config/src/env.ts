import { z } from 'zod';
import { parseSecretKey } from './secrets';
import { endpointUrlPolicy } from '@teapot/webhooks';
import { parsedBy, wholeNumber } from './variables';
import { webhookUrlAllow } from './webhooks';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export type EnvSource = Record<string, string | undefined>;

// The pieces are exported one by one so each app composes its own schema from the same definitions.
export const databaseUrl = z.url({
  protocol: /^postgres(ql)?$/,
  error: 'must be a postgres:// or postgresql:// URL',
});
export const redisUrl = z.url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL' });
export const redisPrefix = z
  .string()
  .regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'must be 1-64 characters of letters, digits, _ . : -')
  .default('teapot');
export const secretKey = z.string().transform((text, ctx): Buffer => {
  const key = parseSecretKey(text);
  if (key) return key;
  ctx.addIssue({ code: 'custom', message: 'must be 32 bytes written as base64 (44 characters) or hex (64)' });
  return z.NEVER;
});
/** Long and varied enough that guessing is hopeless (48 hex characters are 192 bits). */
export const API_KEY_MIN_LENGTH = 32;
const API_KEY_MIN_DISTINCT = 10;
export const apiKey = z
  .string()
  .refine(
    (key) => key.length >= API_KEY_MIN_LENGTH && new Set(key).size >= API_KEY_MIN_DISTINCT,
    `must be at least ${API_KEY_MIN_LENGTH} characters, at least ${API_KEY_MIN_DISTINCT} of them different`,
  );
/** Where a listener binds: loopback unless the operator opens it (0.0.0.0 or :: for every interface). */
export const listenHost = z
  .string()
  .regex(/^[A-Za-z0-9.:-]{1,253}$/, 'must be an IP address or a host name, e.g. 127.0.0.1 or 0.0.0.0')
  .default('127.0.0.1');
export const port = z.coerce
  .number({ error: 'must be a port number' })
  .int('must be a whole number')
  .min(0, 'must be 0-65535')
  .max(65535, 'must be 0-65535')
  .default(3000);
export const logLevel = z
  .enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` })
  .default('info');

/**
 * TEAPOT_ENDPOINT_URL_ALLOW, read into a policy: the API checks base URLs at registration, the
 * worker again at every connection. Default public + private (GPU boxes on private networks);
 * loopback is opt-in; link-local and cloud metadata are never allowed.
 */
export const endpointUrlAllow = z.string().optional().transform(parsedBy(endpointUrlPolicy));

/**
 * How long a database query may go unanswered before it fails and its connection is dropped. A
 * refused connection fails at once; a silent one (a network partition, a blackholed route) would
 * otherwise hold the query, and whatever awaits it (a scheduler tick, a run's write), forever.
 */
export const databaseQueryTimeoutMs = wholeNumber(100, 3_600_000, 60_000);

/**
 * The directory profiles' `tokenizer` paths are under (API: checked at profile creation; worker: read
 * at run time). Unset: the API checks only the path's form, and a worker fails runs that name one.
 */
export const tokenizerDir = z.string().min(1).optional();

/** What every teapot process needs: the database, Redis, the secrets key, logging, the endpoint URL policy. */
export const sharedEnvShape = {
  TEAPOT_ENDPOINT_URL_ALLOW: endpointUrlAllow,
  TEAPOT_TOKENIZER_DIR: tokenizerDir,
  DATABASE_URL: databaseUrl,
  DATABASE_QUERY_TIMEOUT_MS: databaseQueryTimeoutMs,
  REDIS_URL: redisUrl,
  TEAPOT_REDIS_PREFIX: redisPrefix,
  TEAPOT_SECRET_KEY: secretKey,
  LOG_LEVEL: logLevel,
};

/** How to fix each variable, printed next to the problem. */
export const ENV_HINTS: Record<string, string> = {
  DATABASE_URL: 'e.g. postgresql://postgres@127.0.0.1:5432/teapot',
  REDIS_URL: 'e.g. redis://127.0.0.1:6379',
  TEAPOT_SECRET_KEY: 'generate one with: openssl rand -base64 32',
  TEAPOT_API_KEY: 'the bootstrap API key (write scope); generate one with: openssl rand -hex 24',
};

export class EnvError extends Error {
  constructor(
    readonly problems: ReadonlyArray<{ variable: string; problem: string }>,
    app: string,
  ) {
    super(
      `teapot ${app} cannot start: fix these environment variables:\n` +
        problems
          .map(({ variable, problem }) => {
            const hint = ENV_HINTS[variable];
            return `  ${variable} ${problem}${hint ? ` (${hint})` : ''}`;
          })
          .join('\n'),
    );
    this.name = 'EnvError';
  }
}

/**
 * Parses the environment against `schema` and reports every missing or invalid variable in one
 * error. Empty strings count as unset; values are never echoed (some are secrets).
 */
export function parseEnv<Schema extends z.ZodType>(
  schema: Schema,
  env: EnvSource,
  app: string,
): z.output<Schema> {
  const present: EnvSource = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && value.trim() !== '') present[name] = value;
  }
  const result = schema.safeParse(present);
  if (result.success) return result.data;
  const problems = new Map<string, string>();
  for (const issue of result.error.issues) {
    const variable = String(issue.path[0] ?? '(environment)');
    if (problems.has(variable)) continue;
    problems.set(variable, present[variable] === undefined ? 'is missing' : `is invalid: ${issue.message}`);
  }
  throw new EnvError(
    [...problems].map(([variable, problem]) => ({ variable, problem })),
    app,
  );
}

export const apiEnvSchema = z.object({
  ...sharedEnvShape,
  /** Which webhook URLs registrations may name (`public`, `private`, `loopback`). */
  TEAPOT_WEBHOOK_URL_ALLOW: webhookUrlAllow,
  TEAPOT_API_KEY: apiKey,
  PORT: port,
  HOST: listenHost,
  /** Wrong API keys one client address may send per minute (a burst of that many, refilled over a minute). */
  TEAPOT_AUTH_FAILURES_PER_MINUTE: z.coerce
    .number({ error: 'must be a number' })
    .int('must be a whole number')
    .min(1, 'must be 1-10000')
    .max(10_000, 'must be 1-10000')
    .default(20),
  /**
   * Series groups (endpoint x profile x serving-configuration version) whose latest results
   * `/metrics` shows, most recently run first; the rest are counted in teapot_latest_results_omitted.
   */
  TEAPOT_METRICS_MAX_GROUPS: z.coerce
    .number({ error: 'must be a number' })
    .int('must be a whole number')
    .min(1, 'must be 1-10000')
    .max(10_000, 'must be 1-10000')
    .default(500),
  /**
   * Heavy analyses (comparisons) one API process runs at once, and the size of their own database
   * pool; beyond it they are refused with 503 and Retry-After.
   */
  TEAPOT_ANALYSIS_CONCURRENCY: wholeNumber(1, 64, 4),
  /** Heavy analyses one API key runs at once in one process; beyond it they are refused with 429 and Retry-After. */
  TEAPOT_ANALYSIS_CONCURRENCY_PER_KEY: wholeNumber(1, 64, 2),
  /** The built dashboard served at `/`; unset means apps/web/dist of this checkout. */
  TEAPOT_WEB_DIR: z.string().optional(),
});
export type ApiEnv = z.output<typeof apiEnvSchema>;

export function loadApiEnv(env: EnvSource = process.env): ApiEnv {
  return parseEnv(apiEnvSchema, env, 'api');
}
