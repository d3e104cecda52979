import { createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger, NotFoundException, type OnApplicationBootstrap } from '@nestjs/common';
import type { ApiEnv } from '@teapot/config';
import { isUniqueViolation, Prisma } from '@teapot/db';
import { InFlight } from '../common/in-flight';
import { API_ENV } from '../env/env.module';
import { PrismaService } from '../prisma/prisma.service';
import type { ApiKeyDto, ApiKeyScope, CreateApiKeyDto, CreatedApiKeyDto } from './dto/api-key.dto';

const FINGERPRINT_LENGTH = 8;
// Writing lastUsedAt on every request would make every read a write.
const LAST_USED_RESOLUTION_MS = 60_000;

export interface AuthenticatedKey {
  id: string;
  scope: ApiKeyScope;
}

const STORED_FIELDS = {
  id: true,
  name: true,
  scope: true,
  keyHash: true,
  bootstrap: true,
  createdAt: true,
  lastUsedAt: true,
  revokedAt: true,
} as const;
type StoredKey = Prisma.ApiKeyGetPayload<{ select: typeof STORED_FIELDS }>;

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** A short, non-secret name for a key: the start of its hash says nothing of the key itself. */
export function fingerprintOf(keyHash: string): string {
  return keyHash.slice(0, FINGERPRINT_LENGTH);
}

@Injectable()
export class ApiKeysService implements OnApplicationBootstrap {
  private readonly logger = new Logger(ApiKeysService.name);
  private readonly lookups = new InFlight<AuthenticatedKey | null>();

  constructor(
    private readonly prisma: PrismaService,
    @Inject(API_ENV) private readonly env: ApiEnv,
  ) {}

  /**
   * TEAPOT_API_KEY is the bootstrap key: a new value replaces the previous one (revoked here), so
   * changing the variable and restarting is a rotation. A key revoked through the API stays revoked.
   */
  async onApplicationBootstrap(): Promise<void> {
    const keyHash = hashApiKey(this.env.TEAPOT_API_KEY);
    // Two API processes booting at once may both insert; the loser finds the winner's row.
    await this.prisma.apiKey
      .create({ data: { name: 'TEAPOT_API_KEY', scope: 'write', keyHash, bootstrap: true } })
      .catch((error: unknown) => {
        if (!isUniqueViolation(error)) throw error;
      });
    const stored = await this.prisma.apiKey.findUniqueOrThrow({
      where: { keyHash },
      select: { revokedAt: true },
    });
    if (stored.revokedAt) {
      // Going back to a revoked value must not also revoke the key that replaced it.
      this.logger.warn(
        'TEAPOT_API_KEY is a revoked key and is not accepted; set a new value (openssl rand -hex 24).',
      );
      return;
    }
    const predecessors = await this.prisma.apiKey.findMany({
      where: { bootstrap: true, revokedAt: null, keyHash: { not: keyHash } },
      select: { id: true, keyHash: true },
    });
    if (predecessors.length === 0) return;
    await this.prisma.apiKey.updateMany({
      where: { id: { in: predecessors.map((key) => key.id) } },
      data: { revokedAt: new Date() },
    });
    this.logger.warn(
      `TEAPOT_API_KEY changed: the previous bootstrap key (${predecessors.map((key) => fingerprintOf(key.keyHash)).join(', ')}) is revoked.`,
    );
  }

  /**
   * The key's id and scope, or null for an unknown or revoked key. Asked of the database for every
   * request, so a revocation holds at once in every API process; requests with the same key that
   * arrive while its lookup is under way join it (under load, one client's many connections otherwise
   * queued a lookup each for the pool's few connections). In plain SQL on Prisma's pool, since
   * Prisma's own handling of this one lookup was the largest per-request cost of a cheap read under
   * load (bench:api-load).
   */
  authenticate(key: string): Promise<AuthenticatedKey | null> {
    const keyHash = hashApiKey(key);
    return this.lookups.run(keyHash, () => this.lookUp(keyHash));
  }

  private async lookUp(keyHash: string): Promise<AuthenticatedKey | null> {
    const { rows } = await this.prisma.pool.query<{
      id: string;
      scope: ApiKeyScope;
      last_used_at: Date | null;
    }>(
      'SELECT id, scope::text AS scope, last_used_at FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL',
      [keyHash],
    );
    const [stored] = rows;
    if (!stored) return null;
    const now = new Date();
    if (!stored.last_used_at || now.getTime() - stored.last_used_at.getTime() > LAST_USED_RESOLUTION_MS) {
      await this.prisma.apiKey.update({ where: { id: stored.id }, data: { lastUsedAt: now } });
    }
    return { id: stored.id, scope: stored.scope };
  }

  async create(input: CreateApiKeyDto): Promise<CreatedApiKeyDto> {
    const key = `tpk_${randomBytes(24).toString('base64url')}`;
    const stored = await this.prisma.apiKey.create({
      data: { name: input.name, scope: input.scope, keyHash: hashApiKey(key) },
      select: STORED_FIELDS,
    });
    return { ...toDto(stored), key };
  }

  async list(): Promise<ApiKeyDto[]> {
    const keys = await this.prisma.apiKey.findMany({
      select: STORED_FIELDS,
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    });
    return keys.map(toDto);
  }

  async revoke(id: string): Promise<ApiKeyDto> {
    const stored = await this.prisma.apiKey.findUnique({ where: { id }, select: STORED_FIELDS });
    if (!stored) throw new NotFoundException(`No API key ${id}.`);
    if (stored.revokedAt) return toDto(stored);
    return toDto(
      await this.prisma.apiKey.update({
        where: { id },
        data: { revokedAt: new Date() },
        select: STORED_FIELDS,
      }),
    );
  }
}

function toDto({ keyHash, ...key }: StoredKey): ApiKeyDto {
  return { ...key, fingerprint: fingerprintOf(keyHash) };
}
