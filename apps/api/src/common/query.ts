import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsBoolean, IsOptional, IsUUID } from 'class-validator';
import { parseWholeNumber } from './parse';
import { IsWholeNumber } from './validators';

/** An optional whole-number query parameter, read strictly (see parseWholeNumber). */
export function QueryWholeNumber(min: number, max: number, message?: string): PropertyDecorator {
  return applyDecorators(
    IsOptional(),
    Transform(({ value }: { value: unknown }) =>
      typeof value === 'string' ? (parseWholeNumber(value) ?? value) : value,
    ),
    IsWholeNumber(min, max, message ? { message } : undefined),
  );
}

/**
 * Prisma's `contains` for a name search: `%`, `_` and `\` are LIKE wildcards and the escape
 * character, so they are escaped to mean themselves.
 */
export function containsText(text: string): { contains: string; mode: 'insensitive' } {
  return { contains: text.replace(/[\\%_]/g, (character) => `\\${character}`), mode: 'insensitive' };
}

/** An optional `true`/`false` query parameter; anything else is a 400. */
export function QueryBoolean(): PropertyDecorator {
  return applyDecorators(
    IsOptional(),
    Transform(({ value }: { value: unknown }) =>
      value === 'true' ? true : value === 'false' ? false : value,
    ),
    IsBoolean(),
  );
}

/** A repeatable query parameter (`?tag=a&tag=b`), read as an array even when given once. */
export function QueryArray(maxItems: number): PropertyDecorator {
  return applyDecorators(
    IsOptional(),
    Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? [value] : value)),
    IsArray(),
    ArrayMaxSize(maxItems),
  );
}

/** A repeatable UUID query parameter (`?endpointId=a&endpointId=b`), documented as `description`. */
export function QueryUuids(maxItems: number, description: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type: [String], format: 'uuid', description }),
    QueryArray(maxItems),
    IsUUID('all', { each: true }),
  );
}
