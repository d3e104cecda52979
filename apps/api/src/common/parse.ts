import { RequestValidationException } from '../errors/request-validation.exception';

/**
 * The one reading of whole numbers and times in URLs (paths, query strings, cursors): one spelling
 * per value, so `01`, `1e3`, `0x10` and ` 5` are refused instead of guessed at.
 */

const WHOLE_NUMBER = /^-?(0|[1-9]\d{0,14})$/;

/** A whole number written plainly (no sign but `-`, no leading zeros, spaces or exponents), or null. */
export function parseWholeNumber(text: string): number | null {
  if (!WHOLE_NUMBER.test(text) || text === '-0') return null;
  return Number(text);
}

/** What every time parameter accepts; Postgres and JS dates agree over the whole range. */
export const TIME_RULE =
  'must be a time in ISO 8601 with a zone, from 1970 to 9999 (e.g. 2026-01-01T00:00:00Z, or 2026-01-01 for UTC midnight)';

const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2}))?$/i;
const EARLIEST_MS = Date.UTC(1970, 0, 1);
const LATEST_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * `YYYY-MM-DDTHH:MM[:SS[.fraction]]` with `Z` or `±HH:MM`, or a bare date (UTC midnight); the
 * calendar date must exist. Null for anything else, including times outside 1970..9999.
 */
export function parseTimestamp(text: string): Date | null {
  const match = TIMESTAMP.exec(text);
  if (!match) return null;
  const [year, month, day, hour = 0, minute = 0, second = 0] = match
    .slice(1, 7)
    .map((part) => (part === undefined ? undefined : Number(part)));
  const fraction = match[7] ? Number(match[7].padEnd(3, '0').slice(0, 3)) : 0;
  const zone = match[8]?.toUpperCase() ?? 'Z';
  if (year === undefined || month === undefined || day === undefined) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  const calendar = new Date(Date.UTC(2000, month - 1, day));
  calendar.setUTCFullYear(year);
  if (calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day) return null;
  let offsetMinutes = 0;
  if (zone !== 'Z') {
    const [hours, minutes] = zone.slice(1).split(':').map(Number);
    if (hours > 23 || minutes > 59) return null;
    offsetMinutes = (zone[0] === '-' ? -1 : 1) * (hours * 60 + minutes);
  }
  const at = calendar.getTime() + ((hour * 60 + minute - offsetMinutes) * 60 + second) * 1000 + fraction;
  return at >= EARLIEST_MS && at <= LATEST_MS ? new Date(at) : null;
}

/** A time parameter the DTO already checked, as a Date; a 400 naming `field` if it slipped through. */
export function timeParameter(text: string, field: string): Date {
  const at = parseTimestamp(text);
  if (!at) throw new RequestValidationException([{ field, problem: TIME_RULE }]);
  return at;
}
