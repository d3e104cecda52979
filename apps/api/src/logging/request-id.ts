import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Honours a caller's `x-request-id` when it is safe to echo and log, else makes one; runs first. */
export function assignRequestId(
  request: IncomingMessage & { id?: string },
  response: ServerResponse,
  next: () => void,
): void {
  const incoming = request.headers['x-request-id'];
  const id = typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
  request.id = id;
  response.setHeader('x-request-id', id);
  next();
}
