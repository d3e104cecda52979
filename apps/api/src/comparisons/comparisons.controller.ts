import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Comparison, SweepComparison } from '@teapot/analysis';
import { ClientGone, HeavyAnalysis } from '../admission/heavy-analysis';
import { AnalysisRoute } from '../common/routes';
import { ComparisonDto } from './dto/comparison-result.dto';
import { CreateComparisonDto } from './dto/comparison.dto';
import { CreateSweepComparisonDto, SweepComparisonDto } from './dto/sweep-comparison.dto';
import { ComparisonsService } from './comparisons.service';

const COMPARE_SWEEPS = {
  summary: 'Compare capacity at SLO and cost per million tokens between two sets of capacity searches',
  description:
    'Each side is sweep ids, a window, a configuration filter or a mix (as POST /comparisons); each finished ' +
    'capacity search is one sample. Per metric: the values, the change of their geometric means with a Welch ' +
    'interval on the logs, and a verdict against the threshold (default 5%). A side whose every sweep missed the ' +
    'SLO at its lowest load has no capacity: against a side that has one, that is a regression.',
  type: SweepComparisonDto,
  badRequest: 'Names the field: unknown metric, a side without a window or sweep ids...',
};

@ApiTags('comparisons')
@Controller('comparisons')
export class ComparisonsController {
  constructor(private readonly comparisons: ComparisonsService) {}

  @Post()
  @HttpCode(200)
  @AnalysisRoute({
    summary: 'Compare a baseline and a candidate set of runs',
    description:
      'Each side is run ids, a window, a configuration filter or a mix, e.g. ' +
      '`{"baseline": {"from": "2026-11-24T00:00:00Z", "config": {"weightQuant": ["fp16"]}}, "candidate": {"from": "2026-11-24T00:00:00Z", "config": {"weightQuant": ["fp8"]}}}`. ' +
      'Per metric and statistic: both values, the change, its 95% bootstrap interval (what was resampled and why), ' +
      "a Mann-Whitney U p-value, a verdict against the threshold, and each side's memory-bound TPOT floor. " +
      'Nothing is stored: the same body and data give the same answer.',
    type: ComparisonDto,
    badRequest: 'Names the field: unknown metric, a side without a window or run ids, too many runs...',
  })
  @HeavyAnalysis()
  compare(@Body() body: CreateComparisonDto, @ClientGone() clientGone: AbortSignal): Promise<Comparison> {
    return this.comparisons.compare(body, clientGone);
  }

  @Post('sweeps')
  @HttpCode(200)
  @AnalysisRoute(COMPARE_SWEEPS)
  @HeavyAnalysis()
  compareSweeps(
    @Body() body: CreateSweepComparisonDto,
    @ClientGone() clientGone: AbortSignal,
  ): Promise<SweepComparison> {
    return this.comparisons.compareSweeps(body, clientGone);
  }
}
