import { BadRequestException, UnsupportedMediaTypeException } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * JSON.parse reviver: keys that could reach an object's prototype, and NUL characters (Postgres
 * cannot store them in text), make the body malformed before any code sees it.
 */
export function reviveSafely(key: string, value: unknown): unknown {
  if (FORBIDDEN_KEYS.has(key)) throw new SyntaxError(`key "${key}" is not allowed in a JSON body`);
  if (typeof value === 'string' && value.includes('\u0000')) {
    throw new SyntaxError('strings must not contain NUL (\\u0000) characters');
  }
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

/** NUL in a path or query value would reach Postgres, which cannot store it. */
export function refuseNulInUrl(request: Request, _response: Response, next: NextFunction): void {
  if (/%00/i.test(request.url)) {
    next(new BadRequestException('The URL must not contain NUL (%00) characters.'));
    return;
  }
  next();
}
