/**
 * The named fields of a row, for DTOs that pass most of a row through unchanged: the list of names is
 * the DTO's public surface, and a field added to the table stays private until it is listed here.
 */
export function pick<Row, Key extends keyof Row>(row: Row, keys: readonly Key[]): Pick<Row, Key> {
  const picked = {} as Pick<Row, Key>;
  for (const key of keys) picked[key] = row[key];
  return picked;
}
