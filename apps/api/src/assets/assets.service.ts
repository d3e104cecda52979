import { Injectable, NotFoundException } from '@nestjs/common';
import { AssetStore, type AssetMeta } from '@teapot/db';
import {
  DatasetError,
  parseConversations,
  parseTrace,
  TraceError,
  type DatasetFormat,
} from '@teapot/measure';
import { RequestValidationException } from '../errors/request-validation.exception';
import { PrismaService } from '../prisma/prisma.service';
import type {
  AssetContents,
  AssetDto,
  AssetKind,
  UploadAssetQueryDto,
  UploadedAssetDto,
} from './dto/asset.dto';

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
  return asBadRequest(field, () => parseConversations(datasetText(bytes), format));
}

/** A trace's requests, or a 400 naming the line and field that does not fit. */
export function readTrace(bytes: Buffer, field: string) {
  return asBadRequest(field, () => parseTrace(datasetText(bytes)));
}

/** `read()`, with a file that does not read (DatasetError, TraceError) as a 400 naming `field`. */
export function asBadRequest<T>(field: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof DatasetError || error instanceof TraceError)
      throw new RequestValidationException([{ field, problem: error.message }]);
    throw error;
  }
}

/** What an upload's response says of the file: conversations and turns, or a trace's lines and span. */
function contentsOf(query: UploadAssetQueryDto, body: Buffer): AssetContents {
  if (query.kind === 'trace') {
    const { format, requests } = readTrace(body, 'body');
    return { traceFormat: format, lines: requests.length, spanS: requests[requests.length - 1].atMs / 1000 };
  }
  if (query.format === undefined)
    throw new RequestValidationException([{ field: 'format', problem: 'is required for a dataset' }]);
  const conversations = readDataset(body, query.format, 'body');
  const turns = conversations.reduce((sum, c) => sum + c.turns.length, 0);
  return { conversations: conversations.length, turns };
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
    const contents = contentsOf(query, body);
    const { asset, created } = await this.store.put(query.kind, mediaType, body);
    return { asset: { ...assetDto(asset), ...contents }, created };
  }

  async get(sha256: string): Promise<AssetDto> {
    const meta = /^[0-9a-f]{64}$/.test(sha256) ? await this.store.meta(sha256) : null;
    if (meta === null) throw new NotFoundException(`No asset with SHA-256 ${sha256}.`);
    return assetDto(meta);
  }

  /** A stored file's bytes of the kind a profile names it as; null when there is none. */
  async bytesOf(sha256: string, kind: AssetKind): Promise<Buffer | null> {
    const meta = await this.store.meta(sha256);
    if (meta === null || meta.kind !== kind) return null;
    return this.store.bytes(sha256);
  }
}
