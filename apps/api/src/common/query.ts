import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsOptional } from 'class-validator';

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
