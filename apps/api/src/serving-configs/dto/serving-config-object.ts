import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsObject, ValidateNested } from 'class-validator';
import { IsAbsentOr } from '../../common/validators';
import { CreateServingConfigDto } from './serving-config.dto';

/**
 * A serving configuration given inside another request (an endpoint's first, a deployment's next),
 * checked as if it had been posted on its own.
 */
export function ServingConfigObject(description: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type: CreateServingConfigDto, description }),
    IsAbsentOr(),
    IsObject({ message: 'config must be a JSON object' }),
    ValidateNested(),
    Type(() => CreateServingConfigDto),
  );
}
