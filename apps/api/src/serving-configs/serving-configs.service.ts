import { Injectable } from '@nestjs/common';
import { isUniqueViolation, Prisma, type ServingConfig } from '@teapot/db';
import { PrismaService } from '../prisma/prisma.service';
import type { CreateServingConfigDto, ServingConfigDto } from './dto/serving-config.dto';
import { orNotFound } from '../common/not-found';

const VERSION_ATTEMPTS = 5;

@Injectable()
export class ServingConfigsService {
  constructor(private readonly prisma: PrismaService) {}

  /** Adds the next version. */
  async add(endpointId: string, input: CreateServingConfigDto): Promise<ServingConfigDto> {
    await this.requireEndpoint(endpointId);
    return retryVersionRace(() => addServingConfigVersion(this.prisma, endpointId, input));
  }

  async list(endpointId: string): Promise<ServingConfigDto[]> {
    await this.requireEndpoint(endpointId);
    return this.prisma.servingConfig.findMany({ where: { endpointId }, orderBy: { version: 'desc' } });
  }

  async get(endpointId: string, version: number): Promise<ServingConfigDto> {
    return orNotFound(
      await this.prisma.servingConfig.findUnique({
        where: { endpointId_version: { endpointId, version } },
      }),
      `Endpoint ${endpointId} has no serving configuration version ${version}.`,
    );
  }

  private async requireEndpoint(id: string): Promise<void> {
    const row = await this.prisma.endpoint.findUnique({ where: { id }, select: { id: true } });
    orNotFound(row, `No endpoint ${id}.`);
  }
}

/**
 * Inserts the endpoint's next configuration version through `db` (a transaction or the client).
 * A concurrent add of the same version fails with a unique violation: run it in retryVersionRace.
 */
export async function addServingConfigVersion(
  db: Pick<Prisma.TransactionClient, 'servingConfig'>,
  endpointId: string,
  input: CreateServingConfigDto,
): Promise<ServingConfig> {
  const latest = await db.servingConfig.aggregate({ where: { endpointId }, _max: { version: true } });
  return db.servingConfig.create({
    data: { ...servingConfigData(input), endpointId, version: (latest._max.version ?? 0) + 1 },
  });
}

/** Two concurrent adds race on (endpoint, version): the loser runs `add` (its whole transaction) again. */
export async function retryVersionRace<T>(add: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await add();
    } catch (error) {
      if (!isUniqueViolation(error) || attempt >= VERSION_ATTEMPTS) throw error;
    }
  }
}

/** The DTO as Prisma input: `extra` defaults to {} in the database when absent. */
export function servingConfigData(
  input: CreateServingConfigDto,
): Omit<Prisma.ServingConfigUncheckedCreateInput, 'endpointId' | 'version'> {
  const { extra, ...fields } = input;
  return { ...fields, ...(extra === undefined ? {} : { extra: extra as Prisma.InputJsonObject }) };
}
