import { BadRequestException, UnsupportedMediaTypeException } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { ASSET_BODY_TYPES, assetLimitOf } from '../assets/dto/asset.dto';
import { entityTooLarge } from '../errors/api-error.filter';

/** Where files are uploaded (AssetsController). */
export const ASSET_UPLOAD_PATH = '/assets';

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** The body types the JSON parser reads: plain JSON, and JSON Merge Patch (RFC 7396) for PATCH. */
export const JSON_BODY_TYPES = ['application/json', 'application/merge-patch+json'];

/** No DTO nests deeper than a dozen levels; deeper bodies only cost stack. */
export const MAX_JSON_DEPTH = 32;

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

/**
 * body-parser `verify` hook: refuses JSON nested deeper than MAX_JSON_DEPTH by scanning the raw
 * bytes once, before JSON.parse and the validators recurse into it.
 */
export function refuseDeepJson(_request: unknown, _response: unknown, body: Buffer): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const byte = body[i];
    if (inString) {
      if (byte === 0x5c) i++;
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) {
      inString = true;
    } else if (byte === 0x7b || byte === 0x5b) {
      if (++depth > MAX_JSON_DEPTH) {
        throw Object.assign(
          new Error(`The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep; no field needs that.`),
          { status: 400, type: 'entity.too.deep' },
        );
      }
    } else if (byte === 0x7d || byte === 0x5d) {
      depth--;
    }
  }
}

/**
 * A body in any other type would be silently ignored and the request read as empty; a compressed
 * one would be inflated before the API key is checked (work for anyone who can reach the port).
 */
export function refuseNonJsonBodies(request: Request, _response: Response, next: NextFunction): void {
  const hasBody =
    request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;
  if (!hasBody) return next();
  if (request.method === 'POST' && request.path === ASSET_UPLOAD_PATH) {
    // the one route whose body is a file, read as bytes (up to its kind's limit), never as JSON
    if (request.headers['content-encoding'] === undefined && request.is(ASSET_BODY_TYPES)) {
      const limit = assetLimitOf(request.query.kind);
      // refused before a byte is read when the length is declared; the service checks a chunked body
      return next(Number(request.headers['content-length'] ?? 0) > limit ? entityTooLarge(limit) : undefined);
    }
    return next(
      new UnsupportedMediaTypeException(
        `Send the file uncompressed as ${ASSET_BODY_TYPES.join(' or ')} (a JSON file, a tokenizer.json or a dataset array, as application/octet-stream).`,
      ),
    );
  }
  const encoding = request.headers['content-encoding']?.trim().toLowerCase();
  if (encoding && encoding !== 'identity') {
    return next(
      new UnsupportedMediaTypeException(
        'Send the body uncompressed: Content-Encoding is not accepted (bodies are at most 1 MB of JSON).',
      ),
    );
  }
  if (!request.is(JSON_BODY_TYPES)) {
    return next(
      new UnsupportedMediaTypeException(
        'Send the body as JSON, with `Content-Type: application/json` (or `application/merge-patch+json` on PATCH).',
      ),
    );
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
