import { Injectable, NotFoundException } from '@nestjs/common';
import { AssetStore, type AssetMeta } from '@teapot/db';
import { DatasetError, parseConversations, type DatasetFormat } from '@teapot/measure';
import { RequestValidationException } from '../errors/request-validation.exception';
import { PrismaService } from '../prisma/prisma.service';
import type { AssetDto, UploadAssetQueryDto, UploadedAssetDto } from './dto/asset.dto';

const UTF8 = new TextDecoder('utf-8', { fatal: true });

function assetDto(meta: AssetMeta): AssetDto {
  return { ...meta };
}

/** A dataset's bytes as text: a 400 naming the body when they are not UTF-8. */
function datasetText(bytes: Buffer): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    throw new RequestValidationException([{ field: 'body', problem: 'is not UTF-8 text' }]);
  }
}

/** A dataset's conversations, or a 400 naming the line (or item) and field that does not fit. */
export function readDataset(bytes: Buffer, format: DatasetFormat, field: string) {
  try {
    return parseConversations(datasetText(bytes), format);
  } catch (error) {
    if (error instanceof DatasetError)
      throw new RequestValidationException([{ field, problem: error.message }]);
    throw error;
  }
}

@Injectable()
export class AssetsService {
  private readonly store: AssetStore;

  constructor(prisma: PrismaService) {
    this.store = new AssetStore(prisma);
  }

  /** Reads the file, then stores it once by hash (nothing is stored when it does not read). */
  async upload(
    query: UploadAssetQueryDto,
    mediaType: string,
    body: unknown,
  ): Promise<{ asset: UploadedAssetDto; created: boolean }> {
    if (!Buffer.isBuffer(body) || body.length === 0)
      throw new RequestValidationException([
        { field: 'body', problem: 'is empty: send the file as the body' },
      ]);
    const conversations = readDataset(body, query.format, 'body');
    const { asset, created } = await this.store.put(query.kind, mediaType, body);
    const turns = conversations.reduce((sum, c) => sum + c.turns.length, 0);
    return { asset: { ...assetDto(asset), conversations: conversations.length, turns }, created };
  }

  async get(sha256: string): Promise<AssetDto> {
    const meta = /^[0-9a-f]{64}$/.test(sha256) ? await this.store.meta(sha256) : null;
    if (meta === null) throw new NotFoundException(`No asset with SHA-256 ${sha256}.`);
    return assetDto(meta);
  }

  /** A stored dataset's bytes, for a profile that names it; null when there is none. */
  async datasetBytes(sha256: string): Promise<Buffer | null> {
    const meta = await this.store.meta(sha256);
    if (meta === null || meta.kind !== 'dataset') return null;
    return this.store.bytes(sha256);
  }
}
