import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { AssetStore, type AssetMeta } from '@teapot/db';
import {
  DatasetError,
  parseConversations,
  parseTrace,
  TraceError,
  type DatasetFormat,
} from '@teapot/measure';
import { ModelTokenizer, PromptWords, TokenizerFileError } from '@teapot/tokenizer';
import { entityTooLarge } from '../errors/api-error.filter';
import { RequestValidationException } from '../errors/request-validation.exception';
import { PrismaService } from '../prisma/prisma.service';
import {
  ASSET_LIMIT_BYTES,
  type AssetDto,
  type AssetKindName,
  type UploadAssetQueryDto,
  type UploadedAssetDto,
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
    // the parser reads up to the largest kind's limit; a body sent without Content-Length is held to its own here
    if (body.length > ASSET_LIMIT_BYTES[query.kind]) throw entityTooLarge(ASSET_LIMIT_BYTES[query.kind]);
    const facts =
      query.kind === 'tokenizer'
        ? readTokenizer(body, query)
        : query.kind === 'trace'
          ? traceFacts(body, query)
          : datasetFacts(body, query);
    const { asset, created } = await this.store.put(query.kind, mediaType, body);
    // an asset has one kind: the same bytes read as another kind are not stored twice
    if (asset.kind !== query.kind)
      throw new ConflictException(
        `These bytes are stored as a ${asset.kind} (SHA-256 ${asset.sha256}); an asset has one kind.`,
      );
    return { asset: { ...assetDto(asset), ...facts }, created };
  }

  async get(sha256: string): Promise<AssetDto> {
    const meta = /^[0-9a-f]{64}$/.test(sha256) ? await this.store.meta(sha256) : null;
    if (meta === null) throw new NotFoundException(`No asset with SHA-256 ${sha256}.`);
    return assetDto(meta);
  }

  /** A stored file's bytes of the kind a profile names it as; null when there is none. */
  async bytesOf(sha256: string, kind: AssetKindName): Promise<Buffer | null> {
    const meta = await this.store.meta(sha256);
    if (meta === null || meta.kind !== kind) return null;
    return this.store.bytes(sha256);
  }

  /** The kind of the asset stored under `sha256`; null when there is none. */
  async kindOf(sha256: string): Promise<AssetKindName | null> {
    return (await this.store.meta(sha256))?.kind ?? null;
  }
}

function datasetFacts(
  body: Buffer,
  query: UploadAssetQueryDto,
): Pick<UploadedAssetDto, 'conversations' | 'turns'> {
  const conversations = readDataset(body, query.format!, 'body');
  return {
    conversations: conversations.length,
    turns: conversations.reduce((n, c) => n + c.turns.length, 0),
  };
}

function traceFacts(
  body: Buffer,
  query: UploadAssetQueryDto,
): Pick<UploadedAssetDto, 'traceFormat' | 'lines' | 'spanS'> {
  if (query.format !== undefined)
    throw new RequestValidationException([
      { field: 'format', problem: 'is for datasets: leave it out when uploading a trace' },
    ]);
  const { format, requests } = readTrace(body, 'body');
  return { traceFormat: format, lines: requests.length, spanS: requests[requests.length - 1].atMs / 1000 };
}

/**
 * An upload of kind tokenizer must load as one (JSON, a known model type, a vocabulary, an encode
 * that works) and give the one-token words prompts are built from, as every run will: a 400 naming
 * the body otherwise, so a profile can never name a tokenizer its runs cannot use.
 */
function readTokenizer(body: Buffer, query: UploadAssetQueryDto): Pick<UploadedAssetDto, 'vocabularySize'> {
  if (query.format !== undefined)
    throw new RequestValidationException([
      { field: 'format', problem: 'is for datasets: leave it out when uploading a tokenizer' },
    ]);
  let tokenizer: ModelTokenizer;
  try {
    tokenizer = ModelTokenizer.fromBytes(body, 'the file');
    new PromptWords(tokenizer);
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    const problem =
      error instanceof TokenizerFileError ? error.message : `is no usable tokenizer: ${error.message}`;
    throw new RequestValidationException([{ field: 'body', problem }]);
  }
  return { vocabularySize: tokenizer.vocabulary().size };
}
