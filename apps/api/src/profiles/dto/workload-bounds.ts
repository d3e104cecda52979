import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsNumber, Max, Min } from 'class-validator';
import { IsAbsentOr } from '../../common/validators';

/** Lengths a profile may ask for: beyond them no model's context, or no useful benchmark, fits. */
export const MAX_INPUT_TOKENS = 131_072;
export const MAX_OUTPUT_TOKENS = 32_768;
export const FINITE = { allowNaN: false, allowInfinity: false } as const;

/** `lengthJitter`: the relative spread of a workload's lengths, 0 (all equal) to 1. */
export function LengthJitter(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      minimum: 0,
      maximum: 1,
      description: 'Relative spread of lengths; 0 = all equal.',
    }),
    IsAbsentOr(),
    IsNumber(FINITE),
    Min(0),
    Max(1),
  );
}
