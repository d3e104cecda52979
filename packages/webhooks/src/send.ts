import { Agent, request, type Dispatcher } from 'undici';
import { signedHeaders } from './signature';
import { checkUrl, guardedLookup, isUrlPolicyRefusal, type HostResolver, type UrlPolicy } from './url-policy';
import { parseRetryAfter } from './retry';

/** Standard Webhooks senders give a receiver this long; after it the attempt is a timeout. */
export const DEFAULT_TIMEOUT_MS = 15_000;
/** How much of a response body an attempt keeps. */
export const RESPONSE_KEEP_BYTES = 1024;

export interface WebhookMessage {
  url: string;
  /** The current secret, then the previous one while a rotation is in progress. */
  secrets: readonly string[];
  /** `webhook-id`: the same on every attempt of one message. */
  messageId: string;
  /** The exact JSON text to sign and send. */
  body: string;
}

export interface SendOptions {
  policy: UrlPolicy;
  timeoutMs?: number;
  /** Unix ms for `webhook-timestamp` (default now). */
  nowMs?: number;
  userAgent?: string;
  /** A dispatcher whose connections already check `policy` at connect time (see `webhookDispatcher`). */
  dispatcher?: Dispatcher;
}

export interface AttemptResult {
  startedAt: Date;
  durationMs: number;
  /** Null when no response came (refused, timeout, refused by the URL policy). */
  statusCode: number | null;
  error: string | null;
  /** The first 1 KB of the response body, as UTF-8. */
  responseBody: string | null;
  retryAfterMs: number | null;
}

/**
 * A dispatcher for webhook deliveries: every connection resolves its host through
 * `guardedLookup(policy)`, so a name that now points at a refused address (DNS rebinding) is not
 * connected to. undici's `request` never follows redirects, and none are followed here.
 */
export function webhookDispatcher(policy: UrlPolicy, resolve?: HostResolver): Agent {
  return new Agent({ connect: { lookup: guardedLookup(policy, resolve) }, keepAliveTimeout: 4_000 });
}

/**
 * One delivery attempt: POSTs `body` with the three Standard Webhooks headers, reads at most the
 * first 1 KB of the answer and reports what happened. Never throws for the receiver's faults.
 */
export async function sendWebhook(message: WebhookMessage, options: SendOptions): Promise<AttemptResult> {
  const startedAt = new Date();
  const start = process.hrtime.bigint();
  const elapsedMs = () => Number(process.hrtime.bigint() - start) / 1e6;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const failed = (error: string): AttemptResult => ({
    startedAt,
    durationMs: elapsedMs(),
    statusCode: null,
    error,
    responseBody: null,
    retryAfterMs: null,
  });
  try {
    checkUrl(message.url, options.policy);
  } catch (refusal) {
    return failed(`refused by the URL policy: ${message.url} ${(refusal as Error).message}`);
  }
  const timestamp = Math.floor((options.nowMs ?? Date.now()) / 1000);
  const headers = {
    ...signedHeaders(message.secrets, message.messageId, timestamp, message.body),
    'content-type': 'application/json',
    'user-agent': options.userAgent ?? 'teapot-webhooks/1',
  };
  const owned = options.dispatcher ? null : webhookDispatcher(options.policy);
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  try {
    const response = await request(message.url, {
      method: 'POST',
      headers,
      body: message.body,
      dispatcher: options.dispatcher ?? owned!,
      signal: abort.signal,
    });
    const kept = await firstBytes(response.body, RESPONSE_KEEP_BYTES);
    return {
      startedAt,
      durationMs: elapsedMs(),
      statusCode: response.statusCode,
      error: response.statusCode >= 200 && response.statusCode < 300 ? null : `HTTP ${response.statusCode}`,
      responseBody: kept,
      retryAfterMs: parseRetryAfter(response.headers['retry-after']),
    };
  } catch (error) {
    if (abort.signal.aborted) return failed(`timeout: no complete answer within ${timeoutMs} ms`);
    return failed(describeRequestError(error));
  } finally {
    clearTimeout(timer);
    if (owned) void owned.close();
  }
}

async function firstBytes(body: Dispatcher.ResponseData['body'], limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buffer = chunk as Buffer;
    chunks.push(buffer);
    size += buffer.length;
    if (size >= limit) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, limit).toString('utf8');
}

/** A failed undici request in words: a URL-policy refusal at connect time, else the error code and message. */
export function describeRequestError(error: unknown): string {
  const err = error as NodeJS.ErrnoException & { cause?: unknown };
  const cause = err.cause as NodeJS.ErrnoException | undefined;
  if (isUrlPolicyRefusal(error)) {
    return `refused by the URL policy at connect time: ${(cause ?? err).message}`;
  }
  const code = err.code ?? cause?.code;
  const text =
    cause?.message && cause.message !== err.message ? `${err.message}: ${cause.message}` : err.message;
  return code ? `${code}: ${text}` : text;
}
