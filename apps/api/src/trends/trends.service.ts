import { Injectable } from '@nestjs/common';
import {
  SERVING_CONFIG_FIELD_NAMES,
  SERVING_CONFIG_FIELDS,
  sweepTrend,
  trend,
  trendDeployments,
  type ConfigValue,
  type ServingConfigField,
  type Trend,
  type TrendDeployment,
} from '@teapot/analysis';
import { isSweepMetricName } from '@teapot/contracts';
import { analysisStores, type AnalysisStores } from '@teapot/db';
import { InFlight } from '../common/in-flight';
import { INT32_MAX } from '../common/params';
import { parseWholeNumber, timeParameter } from '../common/parse';
import { RequestValidationException } from '../errors/request-validation.exception';
import { PrismaService } from '../prisma/prisma.service';
import type { TrendQueryDto } from './dto/trend.dto';

type TrendAnswer = Trend & { deployments: TrendDeployment[] };

@Injectable()
export class TrendsService {
  private readonly stores: AnalysisStores;
  // A dashboard's many viewers ask the same trends at once: one read, merge and serialization answers all.
  private readonly inFlight = new InFlight<string>();

  constructor(prisma: PrismaService) {
    this.stores = analysisStores(prisma.pool);
  }

  /**
   * The trend and the deployments that took effect on its series' endpoints within its range, as
   * the JSON the route sends; a query asked again while the same query is being answered joins
   * that answer, its serialization included (under load, serializing was the largest cost left).
   */
  trendJson(query: TrendQueryDto): Promise<string> {
    return this.inFlight.run(JSON.stringify(query), async () => JSON.stringify(await this.trend(query)));
  }

  async trend(query: TrendQueryDto): Promise<TrendAnswer> {
    const selection = {
      metric: query.metric,
      statistic: query.statistic,
      bucket: query.bucket,
      from: timeParameter(query.from, 'from'),
      to: query.to ? timeParameter(query.to, 'to') : new Date(),
      endpointIds: query.endpointId,
      profileIds: query.profileId,
      triggers: query.trigger,
      groupBy: query.groupBy,
      includeSaturated: query.includeSaturated ?? false,
      config: configFilters(query),
    };
    const found = isSweepMetricName(selection.metric)
      ? await sweepTrend(this.stores.sweeps, { ...selection, metric: selection.metric })
      : await trend(this.stores, selection);
    return { ...found, deployments: await trendDeployments(this.stores.deployments, found) };
  }
}

/** The query's serving-configuration filters, typed by field ("null" matches an unset field). */
function configFilters(query: TrendQueryDto): Partial<Record<ServingConfigField, ConfigValue[]>> {
  const filters: Partial<Record<ServingConfigField, ConfigValue[]>> = {};
  const given = query as unknown as Partial<Record<ServingConfigField, string[]>>;
  for (const field of SERVING_CONFIG_FIELD_NAMES) {
    const values = given[field];
    if (!values) continue;
    const type = SERVING_CONFIG_FIELDS[field][1];
    filters[field] = values.map((text) => {
      if (text === 'null') return null;
      if (type === 'text') return text;
      if (type === 'bool') {
        if (text === 'true' || text === 'false') return text === 'true';
        throw new RequestValidationException([{ field, problem: 'must be true, false or null' }]);
      }
      const number = parseWholeNumber(text);
      if (number === null || Math.abs(number) > INT32_MAX)
        throw new RequestValidationException([{ field, problem: 'must be a whole number or null' }]);
      return number;
    });
  }
  return filters;
}
