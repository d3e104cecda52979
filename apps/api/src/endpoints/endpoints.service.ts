import { ConflictException, Inject, Injectable } from '@nestjs/common';
import type { ApiEnv } from '@teapot/config';
import { checkUrl, UrlPolicyError } from '@teapot/webhooks';
import { API_ENV } from '../env/env.module';
import { RequestValidationException } from '../errors/request-validation.exception';
import type { Endpoint, Prisma } from '@teapot/db';
import { containsText } from '../common/query';
import { keysetPage, type Page } from '../common/pagination';
import { PrismaService } from '../prisma/prisma.service';
import { servingConfigData } from '../serving-configs/serving-configs.service';
import type {
  CreateEndpointDto,
  EndpointDto,
  ListEndpointsQueryDto,
  UpdateEndpointDto,
} from './dto/endpoint.dto';
import { EndpointSecrets } from './endpoint-secrets';
import { orNotFound } from '../common/not-found';
import { pick } from '../common/pick';

// prettier-ignore
const ENDPOINT_FIELDS = [
  'id', 'name', 'baseUrl', 'apiKind', 'model', 'metricsUrl', 'tags', 'archivedAt', 'createdAt', 'updatedAt',
] as const;

@Injectable()
export class EndpointsService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly secrets: EndpointSecrets,
    @Inject(API_ENV) private readonly env: ApiEnv,
  ) {}

  async create(input: CreateEndpointDto): Promise<EndpointDto> {
    this.checkUrls(input);
    const { authHeaders, metricsHeaders, tags, config, ...fields } = input;
    const endpoint = await this.prisma.endpoint.create({
      data: {
        ...fields,
        ...this.secrets.seal(authHeaders ?? {}),
        ...this.secrets.sealMetrics(metricsHeaders ?? {}),
        tags: unique(tags ?? []),
        ...(config ? { configs: { create: { ...servingConfigData(config), version: 1 } } } : {}),
      },
    });
    return this.toDto(endpoint);
  }

  list(query: ListEndpointsQueryDto): Promise<Page<EndpointDto>> {
    const where: Prisma.EndpointWhereInput = {
      ...(query.includeArchived ? {} : { archivedAt: null }),
      ...(query.tag ? { tags: { hasEvery: query.tag } } : {}),
      ...(query.name ? { name: containsText(query.name) } : {}),
    };
    return keysetPage(
      'createdAt',
      query,
      where,
      (args) => this.prisma.endpoint.findMany(args),
      (row) => this.toDto(row),
    );
  }

  async get(id: string): Promise<EndpointDto> {
    return this.toDto(await this.find(id));
  }

  async update(id: string, input: UpdateEndpointDto): Promise<EndpointDto> {
    const { authHeaders, metricsHeaders, tags, archived, ...fields } = input;
    this.checkUrls(input);
    await this.find(id);
    const endpoint = await this.prisma.endpoint.update({
      where: { id },
      data: {
        ...fields,
        ...(authHeaders === undefined ? {} : this.secrets.seal(authHeaders)),
        ...(metricsHeaders === undefined ? {} : this.secrets.sealMetrics(metricsHeaders)),
        // Clearing the metrics URL clears its headers: they were for that server.
        ...(input.metricsUrl === null ? this.secrets.sealMetrics({}) : {}),
        ...(tags === undefined ? {} : { tags: unique(tags) }),
        ...(archived === undefined ? {} : { archivedAt: archived ? new Date() : null }),
      },
    });
    return this.toDto(endpoint);
  }

  /** Deleting would orphan stored runs, so an endpoint with runs can only be archived. */
  async remove(id: string, archive: boolean): Promise<EndpointDto | null> {
    const endpoint = await this.find(id);
    if (archive) {
      if (endpoint.archivedAt) return this.toDto(endpoint);
      return this.toDto(
        await this.prisma.endpoint.update({ where: { id }, data: { archivedAt: new Date() } }),
      );
    }
    const runs = await this.prisma.run.count({ where: { endpointId: id } });
    if (runs > 0) {
      throw new ConflictException(
        `Endpoint ${id} has ${runs} run(s) and cannot be deleted; archive it instead with DELETE /endpoints/${id}?archive=true.`,
      );
    }
    await this.prisma.endpoint.delete({ where: { id } });
    return null;
  }

  private checkUrls(input: { baseUrl?: string; metricsUrl?: string | null }): void {
    if (input.baseUrl !== undefined) this.checkUrl('baseUrl', input.baseUrl, 'authHeaders');
    if (input.metricsUrl != null) this.checkUrl('metricsUrl', input.metricsUrl, 'metricsHeaders');
  }

  /**
   * The one URL check (WHATWG parsing, http(s), no credentials, IP literals in every encoding judged
   * as the address they are); the worker judges a name by the addresses it resolves to.
   */
  private checkUrl(field: 'baseUrl' | 'metricsUrl', url: string, headersField: string): void {
    try {
      checkUrl(url, this.env.TEAPOT_ENDPOINT_URL_ALLOW);
    } catch (error) {
      if (!(error instanceof UrlPolicyError)) throw error;
      const hint = error.reason === 'credentials' ? ` Put them in ${headersField}.` : '';
      throw new RequestValidationException([{ field, problem: `is refused: ${error.message}${hint}` }]);
    }
  }

  private async find(id: string): Promise<Endpoint> {
    return orNotFound(await this.prisma.endpoint.findUnique({ where: { id } }), `No endpoint ${id}.`);
  }

  private toDto(endpoint: Endpoint): EndpointDto {
    return {
      ...pick(endpoint, ENDPOINT_FIELDS),
      authHeaders: this.secrets.masked(endpoint.authHeaderNames),
      metricsHeaders: this.secrets.masked(endpoint.metricsHeaderNames),
    };
  }
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
