import { endianness } from 'node:os';
import type { ErrorClass, RequestOutcome, RequestRecord, TokenCountSource } from '@teapot/measure';

const LITTLE_ENDIAN_HOST = endianness() === 'LE';

export type ColumnType = 'int4' | 'int8' | 'float8' | 'bool' | 'text' | 'bytea';

/** Columns of run_requests that hold a RequestRecord, in COPY/insert order (after run_id). */
export const REQUEST_COLUMNS: ReadonlyArray<readonly [name: string, type: ColumnType]> = [
  ['index', 'int4'],
  ['warmup', 'bool'],
  ['outcome', 'text'],
  ['error_class', 'text'],
  ['error_message', 'text'],
  ['http_status', 'int4'],
  ['retry_after_s', 'float8'],
  ['scheduled_us', 'int8'],
  ['start_us', 'int8'],
  ['ttfb_us', 'int8'],
  ['ttft_us', 'int8'],
  ['e2e_us', 'int8'],
  ['output_tokens', 'int4'],
  ['prompt_tokens', 'int4'],
  ['target_prompt_tokens', 'int4'],
  ['token_source', 'text'],
  ['response_id', 'text'],
  ['finish_reason', 'text'],
  ['chunk_count', 'int4'],
  ['chunk_offsets_us', 'bytea'],
  ['chunk_tokens', 'bytea'],
  ['chunk_kinds', 'bytea'],
  ['session_id', 'int4'],
  ['turn_index', 'int4'],
];

export type ColumnValue = number | boolean | string | Buffer | null;

/** The stored bytes of a typed array: little-endian, whatever the host. */
export function packLittleEndian(array: Uint32Array | Uint16Array | Uint8Array): Buffer {
  if (LITTLE_ENDIAN_HOST || array.BYTES_PER_ELEMENT === 1)
    return Buffer.from(array.buffer, array.byteOffset, array.byteLength);
  const out = Buffer.allocUnsafe(array.byteLength);
  for (let i = 0; i < array.length; i++) {
    if (array.BYTES_PER_ELEMENT === 4) out.writeUInt32LE(array[i], i * 4);
    else out.writeUInt16LE(array[i], i * 2);
  }
  return out;
}

function unpackLittleEndian<A extends Uint32Array | Uint16Array>(
  bytes: Buffer | null,
  make: (length: number) => A,
): A {
  if (bytes === null) return make(0);
  const width = make(0).BYTES_PER_ELEMENT;
  const out = make(Math.floor(bytes.length / width));
  if (LITTLE_ENDIAN_HOST) new Uint8Array(out.buffer).set(bytes.subarray(0, out.length * width));
  else
    for (let i = 0; i < out.length; i++)
      out[i] = width === 4 ? bytes.readUInt32LE(i * 4) : bytes.readUInt16LE(i * 2);
  return out;
}

export function unpackUint32(bytes: Buffer | null): Uint32Array {
  return unpackLittleEndian(bytes, (n) => new Uint32Array(n));
}

export function unpackUint16(bytes: Buffer | null): Uint16Array {
  return unpackLittleEndian(bytes, (n) => new Uint16Array(n));
}

export function unpackUint8(bytes: Buffer | null): Uint8Array {
  return bytes === null ? new Uint8Array(0) : Uint8Array.from(bytes);
}

/** PostgreSQL text cannot hold NUL; a server's error message may. */
export function storableText(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return value.includes('\0') ? value.replace(/\0/g, '\uFFFD') : value;
}

export function checkInteger(
  value: number,
  what: string,
  index: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (!Number.isInteger(value) || Math.abs(value) > max) {
    throw new RangeError(`request ${index}: ${what} must be an integer within +-${max}, got ${value}`);
  }
  return value;
}

/** A run_requests row as the reader selects it (bigints as decimal strings, bytea as Buffer). */
export interface RequestRow {
  index: number;
  warmup: boolean;
  outcome: string;
  error_class: string | null;
  error_message: string | null;
  http_status: number | null;
  retry_after_s: number | null;
  scheduled_us: string;
  start_us: string;
  ttfb_us: string | null;
  output_tokens: number;
  prompt_tokens: number | null;
  target_prompt_tokens: number | null;
  token_source: string;
  response_id: string | null;
  finish_reason: string | null;
  chunk_offsets_us: Buffer | null;
  chunk_tokens: Buffer | null;
  chunk_kinds: Buffer | null;
  session_id: number | null;
  turn_index: number | null;
}

export function recordFromRow(row: RequestRow): RequestRecord {
  const record: RequestRecord = {
    index: row.index,
    warmup: row.warmup,
    outcome: row.outcome as RequestOutcome,
    scheduledUs: Number(row.scheduled_us),
    startUs: Number(row.start_us),
    ttfbUs: row.ttfb_us === null ? null : Number(row.ttfb_us),
    chunkOffsetsUs: unpackUint32(row.chunk_offsets_us),
    chunkTokens: unpackUint16(row.chunk_tokens),
    chunkKinds: unpackUint8(row.chunk_kinds) as RequestRecord['chunkKinds'],
    tokenSource: row.token_source as TokenCountSource,
    outputTokens: row.output_tokens,
    promptTokens: row.prompt_tokens,
    targetPromptTokens: row.target_prompt_tokens,
    responseId: row.response_id,
    finishReason: row.finish_reason,
    sessionId: row.session_id,
    turnIndex: row.turn_index,
  };
  if (row.error_class !== null) {
    record.error = { kind: row.error_class as ErrorClass, message: row.error_message ?? '' };
    if (row.http_status !== null) record.error.status = row.http_status;
    if (row.retry_after_s !== null) record.error.retryAfterS = row.retry_after_s;
  }
  return record;
}
