import { createParamDecorator, type ExecutionContext, ParseUUIDPipe } from '@nestjs/common';
import type { ApiParamOptions } from '@nestjs/swagger';
import type { Request } from 'express';
import { RequestValidationException } from '../errors/request-validation.exception';
import { parseWholeNumber } from './parse';

/** A UUID path parameter's pipe (see IdParam): a 400 naming the parameter instead of a database error. */
export function uuidParam(name: string): ParseUUIDPipe {
  return new ParseUUIDPipe({
    exceptionFactory: () => new RequestValidationException([{ field: name, problem: 'must be a UUID' }]),
  });
}

export const INT32_MAX = 2 ** 31 - 1;

/**
 * `@PositiveIntParam('version') version: number`: a path parameter read as a whole number from 1 to
 * 2^31-1 by parseWholeNumber (document it with `@ApiParam(positiveIntParamDoc('version'))`). A custom
 * decorator because the global ValidationPipe would turn a `number` parameter into Number('01') = 1
 * before any @Param pipe saw the text.
 */
export const PositiveIntParam = createParamDecorator((name: string, context: ExecutionContext): number => {
  const text = context.switchToHttp().getRequest<Request>().params[name];
  const parsed = typeof text === 'string' ? parseWholeNumber(text) : null;
  if (parsed === null || parsed < 1 || parsed > INT32_MAX) {
    throw new RequestValidationException([
      { field: name, problem: `must be a whole number from 1 to ${INT32_MAX}` },
    ]);
  }
  return parsed;
});

export function positiveIntParamDoc(name: string): ApiParamOptions {
  return { name, schema: { type: 'integer', minimum: 1, maximum: INT32_MAX } };
}
