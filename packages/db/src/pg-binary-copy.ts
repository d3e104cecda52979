import type { ColumnType, ColumnValue } from './request-codec';

/**
 * Encoder for PostgreSQL's binary COPY format: one growing buffer of tuples, handed out in chunks
 * of about `chunkBytes` so a large COPY streams instead of building one huge buffer.
 */
const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');

export class BinaryCopyEncoder {
  private buffer: Buffer;
  private at = 0;

  constructor(private readonly chunkBytes = 1 << 20) {
    this.buffer = Buffer.allocUnsafe(chunkBytes);
    this.ensure(SIGNATURE.length + 8);
    SIGNATURE.copy(this.buffer, 0);
    this.at = SIGNATURE.length;
    this.buffer.writeInt32BE(0, this.at); // flags
    this.buffer.writeInt32BE(0, this.at + 4); // header extension length
    this.at += 8;
  }

  private ensure(bytes: number): void {
    if (this.at + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.at + bytes));
    this.buffer.copy(grown, 0, 0, this.at);
    this.buffer = grown;
  }

  /** Whether a chunk is ready to be taken. */
  get full(): boolean {
    return this.at >= this.chunkBytes;
  }

  /** Takes what was encoded so far. */
  take(): Buffer {
    const chunk = Buffer.from(this.buffer.subarray(0, this.at));
    this.at = 0;
    return chunk;
  }

  /** Ends the stream: the trailer, then the last chunk. */
  finish(): Buffer {
    this.ensure(2);
    this.buffer.writeInt16BE(-1, this.at);
    this.at += 2;
    return this.take();
  }

  /** One field of the given column type. */
  value(type: ColumnType, value: ColumnValue): void {
    if (value === null) return this.null();
    switch (type) {
      case 'int4':
        return this.int4(value as number);
      case 'int8':
        return this.int8(value as number);
      case 'float8':
        return this.float8(value as number);
      case 'bool':
        return this.bool(value as boolean);
      case 'text':
        return this.text(value as string);
      case 'bytea':
        return this.bytea(value as Buffer);
    }
  }

  tuple(fieldCount: number): void {
    this.ensure(2);
    this.buffer.writeInt16BE(fieldCount, this.at);
    this.at += 2;
  }

  null(): void {
    this.ensure(4);
    this.buffer.writeInt32BE(-1, this.at);
    this.at += 4;
  }

  int4(value: number): void {
    const at = this.field(4);
    this.buffer.writeInt32BE(value, at);
  }

  int8(value: number | bigint): void {
    const at = this.field(8);
    this.buffer.writeBigInt64BE(BigInt(value), at);
  }

  float8(value: number): void {
    const at = this.field(8);
    this.buffer.writeDoubleBE(value, at);
  }

  bool(value: boolean): void {
    const at = this.field(1);
    this.buffer[at] = value ? 1 : 0;
  }

  text(value: string): void {
    const length = Buffer.byteLength(value, 'utf8');
    const at = this.field(length);
    this.buffer.write(value, at, length, 'utf8');
  }

  bytea(value: Uint8Array): void {
    const at = this.field(value.length);
    this.buffer.set(value, at);
  }

  /** A uuid from its canonical text form. */
  uuid(value: string): void {
    const hex = value.replace(/-/g, '');
    if (!/^[0-9a-fA-F]{32}$/.test(hex)) throw new Error(`not a uuid: ${value}`);
    const at = this.field(16);
    this.buffer.write(hex, at, 16, 'hex');
  }

  /**
   * Every non-null field is its length in bytes, then the bytes: writes the length, makes room and
   * returns where the bytes go. Call it before reading `this.buffer`: making room may replace it.
   */
  private field(length: number): number {
    this.ensure(4 + length);
    this.buffer.writeInt32BE(length, this.at);
    const at = this.at + 4;
    this.at = at + length;
    return at;
  }
}
