import type { IncomingMessage, ServerResponse } from 'node:http';
import { FaultHeaderError } from './faults';
import { DeploymentError } from './latency-model';
import { ApiError } from './openai-request';

/** The largest request body read; a larger one is answered 413. */
const MAX_BODY_BYTES = 8 * 1024 * 1024;

export function readBody(req: IncomingMessage): Promise<Buffer> {
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

export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function errorBody(
  message: string,
  type: string,
  param: string | null,
  code: string | number | null,
): object {
  return { error: { message, type, param, code } };
}

export function sendError(res: ServerResponse, error: unknown): void {
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

export function sendJson(res: ServerResponse, status: number, body: object): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
