import { createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger, NotFoundException, type OnApplicationBootstrap } from '@nestjs/common';
import type { ApiEnv } from '@teapot/config';
import { Prisma } from '@teapot/db';
import { API_ENV } from '../env/env.module';
import { PrismaService } from '../prisma/prisma.service';
import type { ApiKeyDto, ApiKeyScope, CreateApiKeyDto, CreatedApiKeyDto } from './dto/api-key.dto';

const KEY_PREFIX_LENGTH = 12;
// Writing lastUsedAt on every request would make every read a write.
const LAST_USED_RESOLUTION_MS = 60_000;

export interface AuthenticatedKey {
  id: string;
  scope: ApiKeyScope;
}

const PUBLIC_FIELDS = {
  id: true,
  name: true,
  scope: true,
  keyPrefix: true,
  createdAt: true,
  lastUsedAt: true,
  revokedAt: true,
} as const;

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

@Injectable()
export class ApiKeysService implements OnApplicationBootstrap {
  private readonly logger = new Logger(ApiKeysService.name);

  constructor(
    private readonly prisma: PrismaService,
    @Inject(API_ENV) private readonly env: ApiEnv,
  ) {}

  /** The first key comes from TEAPOT_API_KEY; a revoked one stays revoked (rotate the variable). */
  async onApplicationBootstrap(): Promise<void> {
    const key = this.env.TEAPOT_API_KEY;
    const keyHash = hashApiKey(key);
    // Two API processes booting at once may both insert; the loser finds the winner's row.
    await this.prisma.apiKey
      .create({ data: { name: 'TEAPOT_API_KEY', scope: 'write', keyHash, keyPrefix: prefixOf(key) } })
      .catch((error: unknown) => {
        if (!(error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002')) throw error;
      });
    const stored = await this.prisma.apiKey.findUniqueOrThrow({
      where: { keyHash },
      select: { revokedAt: true },
    });
    if (stored.revokedAt) this.logger.warn('TEAPOT_API_KEY was revoked through the API and is not accepted.');
  }

  async authenticate(key: string): Promise<AuthenticatedKey | null> {
    const stored = await this.prisma.apiKey.findUnique({
      where: { keyHash: hashApiKey(key) },
      select: { id: true, scope: true, revokedAt: true, lastUsedAt: true },
    });
    if (!stored || stored.revokedAt) return null;
    const now = new Date();
    if (!stored.lastUsedAt || now.getTime() - stored.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
      await this.prisma.apiKey.update({ where: { id: stored.id }, data: { lastUsedAt: now } });
    }
    return { id: stored.id, scope: stored.scope };
  }

  async create(input: CreateApiKeyDto): Promise<CreatedApiKeyDto> {
    const key = `tpk_${randomBytes(24).toString('base64url')}`;
    const stored = await this.prisma.apiKey.create({
      data: { name: input.name, scope: input.scope, keyHash: hashApiKey(key), keyPrefix: prefixOf(key) },
      select: PUBLIC_FIELDS,
    });
    return { ...stored, key };
  }

  list(): Promise<ApiKeyDto[]> {
    return this.prisma.apiKey.findMany({
      select: PUBLIC_FIELDS,
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    });
  }

  async revoke(id: string): Promise<ApiKeyDto> {
    const stored = await this.prisma.apiKey.findUnique({ where: { id }, select: PUBLIC_FIELDS });
    if (!stored) throw new NotFoundException(`No API key ${id}.`);
    if (stored.revokedAt) return stored;
    return this.prisma.apiKey.update({
      where: { id },
      data: { revokedAt: new Date() },
      select: PUBLIC_FIELDS,
    });
  }
}

function prefixOf(key: string): string {
  return key.slice(0, KEY_PREFIX_LENGTH);
}
