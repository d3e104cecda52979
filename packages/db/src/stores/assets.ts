import { createHash } from 'node:crypto';
import type { AssetKind } from '../generated/prisma/enums';
import { queriesOf, type ReadStore } from '../run-store';

/** What is known of an uploaded file besides its bytes. */
export interface AssetMeta {
  sha256: string;
  kind: AssetKind;
  mediaType: string;
  sizeBytes: number;
  createdAt: Date;
}

interface AssetRow {
  sha256: string;
  kind: AssetKind;
  media_type: string;
  size_bytes: number;
  created_at: Date;
}

function metaOf(row: AssetRow): AssetMeta {
  return {
    sha256: row.sha256,
    kind: row.kind,
    mediaType: row.media_type,
    sizeBytes: row.size_bytes,
    createdAt: row.created_at,
  };
}

const META_COLUMNS = 'sha256, kind, media_type, size_bytes, created_at';

/** Every SQL statement on `assets`: files stored once, named by the SHA-256 of their bytes. */
export class AssetStore {
  constructor(private readonly db: ReadStore) {}

  /**
   * Stores `bytes` under their hash, once: the same bytes again return the stored row (`created`
   * false), whatever kind or media type they came with the second time.
   */
  async put(
    kind: AssetKind,
    mediaType: string,
    bytes: Buffer,
  ): Promise<{ asset: AssetMeta; created: boolean }> {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const { rows } = await queriesOf(this.db).query<AssetRow>(
      `INSERT INTO assets (sha256, kind, media_type, size_bytes, bytes) VALUES ($1, $2::"AssetKind", $3, $4, $5)
       ON CONFLICT (sha256) DO NOTHING RETURNING ${META_COLUMNS}`,
      [sha256, kind, mediaType, bytes.length, bytes],
    );
    if (rows.length > 0) return { asset: metaOf(rows[0]), created: true };
    const stored = await this.meta(sha256);
    if (stored === null) throw new Error(`asset ${sha256} vanished while it was stored`);
    return { asset: stored, created: false };
  }

  async meta(sha256: string): Promise<AssetMeta | null> {
    const { rows } = await queriesOf(this.db).query<AssetRow>(
      `SELECT ${META_COLUMNS} FROM assets WHERE sha256 = $1`,
      [sha256],
    );
    return rows.length > 0 ? metaOf(rows[0]) : null;
  }

  async bytes(sha256: string): Promise<Buffer | null> {
    const { rows } = await queriesOf(this.db).query<{ bytes: Buffer }>(
      'SELECT bytes FROM assets WHERE sha256 = $1',
      [sha256],
    );
    return rows.length > 0 ? rows[0].bytes : null;
  }
}
