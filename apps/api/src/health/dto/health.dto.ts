import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

const DEPENDENCIES: { type: 'object'; additionalProperties: SchemaObject } = {
  type: 'object',
  additionalProperties: {
    type: 'object',
    properties: { status: { type: 'string', enum: ['up', 'down'] }, message: { type: 'string' } },
    additionalProperties: true,
  },
};

/**
 * /health's own shape (Terminus'), for 200 and 503 alike: load balancers and probes read `status`,
 * people read `error`. It is the one route whose failure is not the error body of every other route.
 */
export class HealthDto {
  @ApiProperty({ enum: ['ok', 'error'], example: 'error' })
  status!: 'ok' | 'error';

  @ApiPropertyOptional({
    ...DEPENDENCIES,
    description: 'Dependencies that answer.',
    example: { database: { status: 'up' } },
  })
  info?: Record<string, unknown>;

  @ApiPropertyOptional({
    ...DEPENDENCIES,
    description: 'Dependencies that do not answer, with why.',
    example: { redis: { status: 'down', message: 'Redis did not answer within 2000 ms' } },
  })
  error?: Record<string, unknown>;

  @ApiProperty({ ...DEPENDENCIES, description: 'Every dependency, up or down.' })
  details!: Record<string, unknown>;
}
