import { ParseUUIDPipe, type PipeTransform } from '@nestjs/common';
import { RequestValidationException } from '../errors/request-validation.exception';

const INT32_MAX = 2 ** 31 - 1;

/** `@Param('id', uuidParam('id'))`: a 400 naming the parameter instead of a database error. */
export function uuidParam(name: string): ParseUUIDPipe {
  return new ParseUUIDPipe({
    exceptionFactory: () => new RequestValidationException([{ field: name, problem: 'must be a UUID' }]),
  });
}

/** A positive whole number that fits the database's 32-bit integer columns. */
export function positiveIntParam(name: string): PipeTransform<string, number> {
  return {
    transform(value: string): number {
      const parsed = /^\d{1,10}$/.test(value) ? Number(value) : NaN;
      if (!(parsed >= 1 && parsed <= INT32_MAX)) {
        throw new RequestValidationException([
          { field: name, problem: `must be a whole number from 1 to ${INT32_MAX}` },
        ]);
      }
      return parsed;
    },
  };
}
