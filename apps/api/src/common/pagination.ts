import { type Type } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
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

/** A page of what an endpoint's profiles measured (runs, sweeps), optionally of one endpoint or profile. */
export class MeasurementsPageQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  endpointId?: string;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  profileId?: string;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

const pageClasses = new Map<Type, Type>();

/** A page class per item type (one, however often asked for), so OpenAPI names the item schema. */
export function PageOf<T>(item: Type<T>): Type<Page<T>> {
  const known = pageClasses.get(item);
  if (known) return known as Type<Page<T>>;
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
  pageClasses.set(item, PageOfItems);
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
function afterCursor(field: string, cursor: string): Record<string, unknown> {
  const { at, id } = decodeCursor(cursor);
  return { OR: [{ [field]: { lt: at } }, { [field]: at, id: { lt: id } }] };
}

/** What `keysetPage` hands to a `findMany`: the filters with the cursor's position, the order, the size. */
export interface KeysetArgs<Field extends string, Where> {
  where: Where | { AND: Where[] };
  orderBy: [Record<Field, 'desc'>, { id: 'desc' }];
  take: number;
}

/**
 * The page of rows after `query.cursor`, newest `field` first (ties by id), filtered by `where`.
 * It asks `find` for `limit + 1` rows: the extra one only says whether there is a next page.
 */
export async function keysetPage<
  Field extends string,
  Where extends object,
  Row extends { id: string },
  Item,
>(
  field: Field,
  query: PageQueryDto,
  where: Where,
  find: (args: KeysetArgs<Field, Where>) => Promise<(Row & Record<Field, Date>)[]>,
  toItem: (row: Row & Record<Field, Date>) => Item,
): Promise<Page<Item>> {
  const rows = await find({
    // AND, not a spread: the filters may have an OR of their own (deployments' verdicts).
    where: query.cursor ? { AND: [where, afterCursor(field, query.cursor) as Where] } : where,
    orderBy: [{ [field]: 'desc' } as Record<Field, 'desc'>, { id: 'desc' }],
    take: query.limit + 1,
  });
  const items = rows.slice(0, query.limit);
  const last = items[items.length - 1];
  const nextCursor =
    rows.length > query.limit && last ? encodeCursor({ at: last[field], id: last.id }) : null;
  return { items: items.map(toItem), nextCursor };
}
