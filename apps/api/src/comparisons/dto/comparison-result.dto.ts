import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { JUDGED_METRIC_NAMES, STATISTICS } from '@teapot/contracts';
import { DiagnosticChangeDto } from '../../runs/dto/diagnostics.dto';

const VERDICTS = ['regressed', 'improved', 'unchanged', 'inconclusive'];
const UNITS = ['runs', 'requests'];

class ConfigVersionDto {
  @ApiProperty({ format: 'uuid' }) endpointId!: string;
  @ApiProperty({ type: Number, nullable: true }) version!: number | null;
}

class ComparisonSideSummaryDto {
  @ApiProperty({ example: 168 }) runs!: number;
  @ApiProperty({ type: [String], format: 'uuid' }) runIds!: string[];
  @ApiProperty({ type: [String], description: 'Named run ids that are not measured runs of the side.' })
  unmatchedRunIds!: string[];
  @ApiProperty({ example: 0 }) excludedSaturatedRuns!: number;
  @ApiProperty({ example: 33600 }) requests!: number;
  @ApiProperty({ example: 8601600 }) tokens!: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) firstRunAt!: Date | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) lastRunAt!: Date | null;
  @ApiProperty({ type: [String], format: 'uuid' }) endpointIds!: string[];
  @ApiProperty({ type: [String], format: 'uuid' }) profileIds!: string[];
  @ApiProperty({ type: [ConfigVersionDto] }) configVersions!: ConfigVersionDto[];
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'array', items: {} },
    example: { weightQuant: ['fp8'], gpuModel: ['H100 SXM'] },
  })
  servingConfig!: Record<string, unknown[]>;
}

class ThresholdDto {
  @ApiProperty({ example: 0.05 }) value!: number;
  @ApiProperty({ enum: ['relative', 'absolute'] }) kind!: string;
  @ApiProperty({
    enum: ['request', 'profile', 'default'],
    description:
      "Who set it: the request's thresholds, else the compared runs' profiles' comparisonThresholds (the strictest when they differ), else the default.",
  })
  source!: string;
  @ApiPropertyOptional({
    format: 'uuid',
    description: 'With source profile: the profile whose threshold applies.',
  })
  profileId?: string;
}

class SamplesDto {
  @ApiProperty({ example: 8601600 }) baseline!: number;
  @ApiProperty({ example: 8601600 }) candidate!: number;
}

class MetricComparisonDto {
  @ApiProperty({ enum: JUDGED_METRIC_NAMES, example: 'itl' }) metric!: string;
  @ApiProperty({ enum: STATISTICS, example: 'p99' }) statistic!: string;
  @ApiProperty({ example: 'ms' }) unit!: string;
  @ApiProperty({ enum: ['token', 'request', 'run'] }) weighting!: string;
  @ApiProperty({ enum: ['lower-is-better', 'higher-is-better'] }) direction!: string;
  @ApiProperty({ type: Number, nullable: true, example: 9.8 }) baseline!: number | null;
  @ApiProperty({ type: Number, nullable: true, example: 6.1 }) candidate!: number | null;
  @ApiProperty({ type: Number, nullable: true, example: -3.7 }) delta!: number | null;
  @ApiProperty({ type: Number, nullable: true, example: -0.378 }) relativeDelta!: number | null;
  @ApiProperty({
    type: [Number],
    nullable: true,
    example: [-3.9, -3.5],
    description: '95% bootstrap interval of delta.',
  })
  ci!: [number, number] | null;
  @ApiProperty({ type: [Number], nullable: true, example: [-0.39, -0.36] })
  relativeCi!: [number, number] | null;
  @ApiProperty({ enum: UNITS, description: 'What the bootstrap redrew.' }) resample!: string;
  @ApiProperty({ type: SamplesDto }) samples!: SamplesDto;
  @ApiProperty({ type: Number, nullable: true, example: 1.2e-12, description: 'Two-sided Mann-Whitney U.' })
  pValue!: number | null;
  @ApiProperty({ type: String, enum: UNITS, nullable: true, description: 'What the rank test compared.' })
  pValueOver!: string | null;
  @ApiProperty({ type: ThresholdDto }) threshold!: ThresholdDto;
  @ApiProperty({ enum: VERDICTS, example: 'improved' }) verdict!: string;
  @ApiPropertyOptional({
    example: 'candidate has 96 requests: p99 needs at least 1000',
    description: 'Why there is no interval; such a row does not count in the overall verdict.',
  })
  insufficient?: string;
}

class SideRooflineDto {
  @ApiProperty({ type: Number, nullable: true, example: 4.79, description: 'Memory-bound TPOT floor, ms.' })
  floorMs!: number | null;
  @ApiProperty({ type: Number, nullable: true, example: 6.4 }) tpotP50Ms!: number | null;
  @ApiProperty({ type: Number, nullable: true, example: 0.75, description: 'floorMs / tpotP50Ms.' })
  achievedFraction!: number | null;
  @ApiPropertyOptional({ example: 'h100-sxm' }) gpu?: string;
  @ApiPropertyOptional({ example: 3.35e12 }) memoryBandwidthBytesPerS?: number;
  @ApiPropertyOptional({ example: 8.03e9 }) modelParams?: number;
  @ApiPropertyOptional({ enum: ['catalogue', 'config'] }) paramsFrom?: string;
  @ApiPropertyOptional({ example: 2 }) bytesPerWeight?: number;
  @ApiPropertyOptional({ example: 1 }) tensorParallel?: number;
  @ApiPropertyOptional({ example: 'gpuModel "H100" is not in the hardware catalogue' }) reason?: string;
}

class RooflineDto {
  @ApiProperty({ type: SideRooflineDto }) baseline!: SideRooflineDto;
  @ApiProperty({ type: SideRooflineDto }) candidate!: SideRooflineDto;
}

class ResamplingDto {
  @ApiProperty({ enum: UNITS }) unit!: string;
  @ApiProperty({ example: 'both sides have >= 10 runs: runs are the independent units ...' }) why!: string;
}

class WorkloadDifferenceDto {
  @ApiProperty({ example: 'workload' }) field!: string;
  @ApiProperty({ type: 'array', items: {} }) baseline!: unknown[];
  @ApiProperty({ type: 'array', items: {} }) candidate!: unknown[];
}

class WorkloadMatchDto {
  @ApiProperty() same!: boolean;
  @ApiProperty({ type: [WorkloadDifferenceDto] }) differences!: WorkloadDifferenceDto[];
}

class CdfPointDto {
  @ApiProperty({ example: 8.4, description: "In the distribution's unit." }) value!: number;
  @ApiProperty({ example: 0.99, description: 'Share of the samples at most `value`.' }) fraction!: number;
}

class SideDistributionDto {
  @ApiProperty({ example: 201600, description: 'Tokens the distribution is over.' }) samples!: number;
  @ApiProperty({
    type: [CdfPointDto],
    description:
      'At most 200 points, increasing in both fields: each value is the quantile `fraction` of the ' +
      "side's merged stored histograms (within 1/128 of the exact one); denser in the tail.",
  })
  points!: CdfPointDto[];
}

class DistributionsDto {
  @ApiProperty({ enum: ['itl'] }) metric!: string;
  @ApiProperty({ enum: ['ms'] }) unit!: string;
  @ApiProperty({ type: SideDistributionDto }) baseline!: SideDistributionDto;
  @ApiProperty({ type: SideDistributionDto }) candidate!: SideDistributionDto;
}

export class ComparisonDto {
  @ApiProperty({ type: ComparisonSideSummaryDto }) baseline!: ComparisonSideSummaryDto;
  @ApiProperty({ type: ComparisonSideSummaryDto }) candidate!: ComparisonSideSummaryDto;
  @ApiProperty({ type: ResamplingDto }) resampling!: ResamplingDto;
  @ApiProperty({ example: 2000 }) iterations!: number;
  @ApiProperty({ example: 1 }) seed!: number;
  @ApiProperty({ example: 0.95 }) confidence!: number;
  @ApiProperty({ type: RooflineDto, nullable: true }) roofline!: RooflineDto | null;
  @ApiProperty({ type: WorkloadMatchDto }) workload!: WorkloadMatchDto;
  @ApiProperty({
    type: [WorkloadDifferenceDto],
    example: [{ field: 'weightQuant', baseline: ['fp16'], candidate: ['fp8'] }],
  })
  configDifferences!: WorkloadDifferenceDto[];
  @ApiProperty({ type: [MetricComparisonDto] }) metrics!: MetricComparisonDto[];
  @ApiProperty({ enum: VERDICTS, example: 'improved' }) verdict!: string;
  @ApiProperty({ type: [String], example: [] }) notes!: string[];
  @ApiProperty({
    type: [DiagnosticChangeDto],
    description:
      "The diagnostics (trend metrics of kind diagnostic) that changed significantly between the sides' runs: what explains the rows. A diagnostic absent on a side is not compared.",
  })
  explanations!: DiagnosticChangeDto[];
  @ApiPropertyOptional({ example: 'candidate: no measured run matches' }) reason?: string;
  @ApiProperty({
    type: DistributionsDto,
    nullable: true,
    description:
      "Each side's ITL distribution as CDF points, to draw them overlaid; null when a side has no run.",
  })
  distributions!: DistributionsDto | null;
}
