import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiForbiddenResponse, ApiOperation, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { ErrorBody } from '../errors/error-body';

export type AccessLevel = 'public' | 'read' | 'write';
export const ACCESS_METADATA = 'teapot:access';

/**
 * What a route needs. Routes without it need a write key: a forgotten decorator fails closed.
 * `read` routes take read or write keys.
 */
export function Access(level: AccessLevel): MethodDecorator & ClassDecorator {
  if (level === 'public')
    return applyDecorators(SetMetadata(ACCESS_METADATA, level), ApiOperation({ security: [] }));
  return applyDecorators(
    SetMetadata(ACCESS_METADATA, level),
    ApiUnauthorizedResponse({ type: ErrorBody, description: 'Missing, unknown or revoked API key.' }),
    ...(level === 'write'
      ? [ApiForbiddenResponse({ type: ErrorBody, description: 'The API key has read scope only.' })]
      : []),
  );
}
