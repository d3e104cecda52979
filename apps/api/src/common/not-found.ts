import { NotFoundException } from '@nestjs/common';

/** The row a lookup found, or a 404 saying what was missing. */
export function orNotFound<Row>(row: Row | null, message: string): Row {
  if (row === null) throw new NotFoundException(message);
  return row;
}
