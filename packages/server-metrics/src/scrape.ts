import { Agent, request, type Dispatcher } from 'undici';
import {
  checkUrl,
  describeRequestError,
  guardedLookup,
  type HostResolver,
  type UrlPolicy,
} from '@teapot/webhooks';
import { ExpositionError, parseExposition, type Sample } from './exposition';

export const DEFAULT_SCRAPE_TIMEOUT_MS = 2_000;
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface ScrapeOptions {
  /** The endpoint URL policy (TEAPOT_ENDPOINT_URL_ALLOW): checked on the URL and on every resolved address. */
  policy: UrlPolicy;
  /** Extra request headers, e.g. { authorization: 'Bearer ...' }. Never logged. */
  headers?: Readonly<Record<string, string>>;
  /** The whole scrape (connect, head, body) must end within this (default 2 s). */
  timeoutMs?: number;
  /** The body is counted while it streams and the scrape aborted beyond this (default 4 MiB). */
  maxBodyBytes?: number;
  /** A dispatcher whose connections check `policy` at connect time (scrapeDispatcher); one per scraper. */
  dispatcher?: Dispatcher;
}

export type ScrapeResult = { ok: true; samples: Sample[]; bytes: number } | { ok: false; error: string };

/**
 * A dispatcher for one run's scrapes: keep-alive, so a scrape a second does not open a connection
 * each time, and every connection resolves its host through the URL policy (guardedLookup), so a name
 * that resolves to a refused address is never connected to. undici's request follows no redirect.
 */
export function scrapeDispatcher(policy: UrlPolicy, resolve?: HostResolver): Agent {
  return new Agent({ connect: { lookup: guardedLookup(policy, resolve) }, keepAliveTimeout: 4_000 });
}

// What Prometheus servers answer with: text/plain (0.0.4) or application/openmetrics-text.
const ACCEPT = 'application/openmetrics-text;version=1.0.0;q=0.5,text/plain;version=0.0.4;q=0.9,*/*;q=0.1';

/**
 * One scrape of a Prometheus endpoint. Never throws for the server's faults: refused URL, timeout, an
 * HTTP status other than 2xx, an HTML or other non-text answer, a body over the cap, text that is not
 * the exposition format all come back as `{ ok: false, error }` in words a run's diagnostics can show.
 */
export async function scrapeMetrics(url: string, options: ScrapeOptions): Promise<ScrapeResult> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_SCRAPE_TIMEOUT_MS;
  const maxBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  try {
    checkUrl(url, options.policy);
  } catch (refusal) {
    return { ok: false, error: `refused by the URL policy: ${(refusal as Error).message}` };
  }
  const owned = options.dispatcher ? null : scrapeDispatcher(options.policy);
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  try {
    const response = await request(url, {
      method: 'GET',
      headers: { accept: ACCEPT, 'user-agent': 'teapot-server-metrics/1', ...options.headers },
      dispatcher: options.dispatcher ?? owned!,
      signal: abort.signal,
    });
    if (response.statusCode < 200 || response.statusCode > 299) {
      discard(response.body);
      return { ok: false, error: `HTTP ${response.statusCode}` };
    }
    const type = String(response.headers['content-type'] ?? '');
    if (!isExpositionType(type)) {
      discard(response.body);
      return { ok: false, error: `answered ${type || 'no content type'}, not the Prometheus text format` };
    }
    const body = await readCapped(response.body, maxBytes);
    if (body === null) return { ok: false, error: `the body is over ${maxBytes} bytes` };
    return { ok: true, samples: parseExposition(body.toString('utf8')), bytes: body.length };
  } catch (error) {
    if (abort.signal.aborted)
      return { ok: false, error: `timeout: no complete answer within ${timeoutMs} ms` };
    return { ok: false, error: describe(error) };
  } finally {
    clearTimeout(timer);
    if (owned) void owned.close();
  }
}

/** text/plain (what vLLM's prometheus_client sends), OpenMetrics text, or none said; never HTML or JSON. */
function isExpositionType(contentType: string): boolean {
  const mime = contentType.split(';')[0].trim().toLowerCase();
  return mime === '' || mime === 'text/plain' || mime === 'application/openmetrics-text';
}

/** The body, or null (and the stream destroyed) once it grows past `limit` bytes. */
async function readCapped(body: Dispatcher.ResponseData['body'], limit: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limit) {
      discard(body);
      return null;
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks, size);
}

/** Drops an answer unread: the connection is closed, not drained (it may be endless). */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

function describe(error: unknown): string {
  if (error instanceof ExpositionError) return error.message;
  return describeRequestError(error);
}
