import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { COMPARISON_LIMITS } from '@teapot/analysis';
import { SWEEP_METRIC_NAMES } from '@teapot/contracts';
import { IsNumber, IsOptional, Max, Min } from 'class-validator';
import { ComparisonSideDto, ComparisonSides, SomeIds, SomeOf } from './comparison.dto';

export class SweepSideDto extends OmitType(ComparisonSideDto, ['runIds', 'includeSaturated'] as const) {
  @SomeIds(COMPARISON_LIMITS.runIds, 'These sweeps (no window needed), e.g. the sweeps after a deployment.')
  sweepIds?: string[];
}

/** A number in [min, max], absent for the default. */
function Fraction(
  min: number,
  max: number,
  doc: { default: number; description: string },
): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional(doc),
    IsOptional(),
    IsNumber({ allowNaN: false, allowInfinity: false }),
    Min(min),
    Max(max),
  );
}

export class CreateSweepComparisonDto extends ComparisonSides(SweepSideDto) {
  @SomeOf(SWEEP_METRIC_NAMES, {
    example: ['capacity'],
    description: 'Default both: capacity (at SLO) and cost_per_mtok (at capacity).',
  })
  metrics?: string[];

  @Fraction(0.0001, 0.9999, { default: 0.05, description: 'The relative change that matters, in (0, 1).' })
  threshold?: number;

  @Fraction(0.5, 0.9999, { default: 0.95, description: 'Of every interval, in [0.5, 1).' })
  confidence?: number;
}

class SweepValuesDto {
  @ApiProperty({ example: 3, description: 'Finished capacity searches the side selected.' }) sweeps!: number;
  @ApiProperty({ type: [Number], example: [30.2, 29.1, 31], description: 'Their values, oldest first.' })
  values!: number[];
  @ApiProperty({ type: Number, nullable: true, example: 30.1, description: 'Geometric mean of the values.' })
  centre!: number | null;
  @ApiProperty({ example: 0, description: 'Sweeps whose SLO failed even at the lowest load.' })
  belowLowest!: number;
}

const WELCH = "Welch's interval on the logs; null with a single value on each side.";

class SweepMetricComparisonDto {
  @ApiProperty({ enum: SWEEP_METRIC_NAMES, example: 'capacity' }) metric!: string;
  @ApiProperty({ type: SweepValuesDto }) baseline!: SweepValuesDto;
  @ApiProperty({ type: SweepValuesDto }) candidate!: SweepValuesDto;
  @ApiProperty({ type: Number, nullable: true, example: -0.29, description: 'Of the geometric means.' })
  change!: number | null;
  @ApiProperty({ type: [Number], nullable: true, example: [-0.34, -0.24], description: WELCH })
  changeCi!: [number, number] | null;
  @ApiProperty({ type: Number, nullable: true, example: 0.0004 }) pValue!: number | null;
  @ApiProperty({ enum: ['regressed', 'improved', 'unchanged', 'inconclusive'] }) verdict!: string;
  @ApiPropertyOptional({ enum: [false], description: 'False: nothing to judge, left out of the verdict.' })
  judged?: false;
  @ApiPropertyOptional({ example: 'a single sweep with a value on each side: no spread to judge by' })
  reason?: string;
}

export class SweepComparisonDto {
  @ApiProperty({ example: 0.05 }) threshold!: number;
  @ApiProperty({ example: 0.95 }) confidence!: number;
  @ApiProperty({ type: [SweepMetricComparisonDto] }) metrics!: SweepMetricComparisonDto[];
  @ApiProperty({ enum: ['regressed', 'improved', 'unchanged', 'inconclusive'] }) verdict!: string;
}
