import { type Type } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { RequestValidationException } from '../errors/request-validation.exception';
import { parseTimestamp } from './parse';
import { QueryWholeNumber } from './query';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

export class PageQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE })
  @QueryWholeNumber(1, MAX_PAGE_SIZE)
  limit: number = DEFAULT_PAGE_SIZE;

  @ApiPropertyOptional({ description: 'The `nextCursor` of the previous page.' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  cursor?: string;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** A page class per item type, so OpenAPI names the item schema. */
export function PageOf<T>(item: Type<T>): Type<Page<T>> {
  class PageOfItems implements Page<T> {
    @ApiProperty({ type: [item] })
    items!: T[];

    @ApiProperty({
      type: String,
      nullable: true,
      description: 'Pass as `cursor` for the next page; null on the last.',
    })
    nextCursor!: string | null;
  }
  Object.defineProperty(PageOfItems, 'name', { value: `${item.name.replace(/Dto$/, '')}Page` });
  return PageOfItems;
}

/** Position after the last item of a page ordered by (time desc, id desc). */
export interface KeysetPosition {
  at: Date;
  id: string;
}

export function encodeCursor(position: KeysetPosition): string {
  return Buffer.from(`${position.at.toISOString()}|${position.id}`).toString('base64url');
}

export function decodeCursor(cursor: string): KeysetPosition {
  const [iso, id, ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const at = parseTimestamp(iso ?? '');
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  if (rest.length > 0 || at === null || !uuid.test(id ?? '')) {
    throw new RequestValidationException([{ field: 'cursor', problem: 'is not a cursor this API returned' }]);
  }
  return { at, id };
}

/** Rows strictly after `cursor` in (field desc, id desc) order. */
export function afterCursor<Field extends string>(
  field: Field,
  cursor: string | undefined,
): Record<string, unknown> {
  if (!cursor) return {};
  const { at, id } = decodeCursor(cursor);
  return { OR: [{ [field]: { lt: at } }, { [field]: at, id: { lt: id } }] };
}

/** Fetch `limit + 1` rows, then call this: the extra row only says whether there is a next page. */
export function toPage<Row extends { id: string }, Item>(
  rows: Row[],
  limit: number,
  timeOf: (row: Row) => Date,
  toItem: (row: Row) => Item,
): Page<Item> {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  const nextCursor = rows.length > limit && last ? encodeCursor({ at: timeOf(last), id: last.id }) : null;
  return { items: items.map(toItem), nextCursor };
}
