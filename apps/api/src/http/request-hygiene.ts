import { UnsupportedMediaTypeException } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** JSON.parse reviver: keys that could reach an object's prototype make the body malformed. */
export function refusePrototypeKeys(key: string, value: unknown): unknown {
  if (FORBIDDEN_KEYS.has(key)) throw new SyntaxError(`key "${key}" is not allowed in a JSON body`);
  return value;
}

/** A body in any other type would be silently ignored and the request read as empty. */
export function refuseNonJsonBodies(request: Request, _response: Response, next: NextFunction): void {
  const hasBody =
    request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;
  if (hasBody && !request.is(['application/json', 'application/*+json'])) {
    next(new UnsupportedMediaTypeException('Send the body as JSON, with `Content-Type: application/json`.'));
    return;
  }
  next();
}
