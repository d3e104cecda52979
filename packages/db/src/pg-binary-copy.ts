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
    this.ensure(8);
    this.buffer.writeInt32BE(4, this.at);
    this.buffer.writeInt32BE(value, this.at + 4);
    this.at += 8;
  }

  int8(value: number | bigint): void {
    this.ensure(12);
    this.buffer.writeInt32BE(8, this.at);
    this.buffer.writeBigInt64BE(BigInt(value), this.at + 4);
    this.at += 12;
  }

  float8(value: number): void {
    this.ensure(12);
    this.buffer.writeInt32BE(8, this.at);
    this.buffer.writeDoubleBE(value, this.at + 4);
    this.at += 12;
  }

  bool(value: boolean): void {
    this.ensure(5);
    this.buffer.writeInt32BE(1, this.at);
    this.buffer[this.at + 4] = value ? 1 : 0;
    this.at += 5;
  }

  text(value: string): void {
    const length = Buffer.byteLength(value, 'utf8');
    this.ensure(4 + length);
    this.buffer.writeInt32BE(length, this.at);
    this.buffer.write(value, this.at + 4, length, 'utf8');
    this.at += 4 + length;
  }

  bytea(value: Uint8Array): void {
    this.ensure(4 + value.length);
    this.buffer.writeInt32BE(value.length, this.at);
    this.buffer.set(value, this.at + 4);
    this.at += 4 + value.length;
  }

  /** A uuid from its canonical text form. */
  uuid(value: string): void {
    const hex = value.replace(/-/g, '');
    if (!/^[0-9a-fA-F]{32}$/.test(hex)) throw new Error(`not a uuid: ${value}`);
    this.ensure(20);
    this.buffer.writeInt32BE(16, this.at);
    this.buffer.write(hex, this.at + 4, 16, 'hex');
    this.at += 20;
  }
}
