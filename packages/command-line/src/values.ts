import { UsageError } from './flags';

// Each reader takes the flag's text as parsed (undefined when the flag is absent, so `?? default`
// supplies the default) and refuses in one wording: `--flag: expected <what>, got "<text>"`.

/**
 * A whole number written as plain digits (a leading minus allowed) from `min` to `max`: "1e3",
 * "0x10", "5.0" and " 5" are refused rather than read as 1000, 16 or 5.
 */
export function wholeNumber(flag: string, text: string, min: number, max?: number): number;
export function wholeNumber(
  flag: string,
  text: string | undefined,
  min: number,
  max?: number,
): number | undefined;
export function wholeNumber(
  flag: string,
  text: string | undefined,
  min: number,
  max?: number,
): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(value) || !within(value, min, max))
    throw new UsageError(`${flag}: expected a whole number ${range(min, max)}, got "${text}"`);
  return value;
}

/** A decimal number (digits, an optional point and exponent; not hex, Infinity or spaces) from `min` to `max`. */
export function numberFrom(flag: string, text: string, min: number, max: number): number;
export function numberFrom(
  flag: string,
  text: string | undefined,
  min: number,
  max: number,
): number | undefined;
export function numberFrom(
  flag: string,
  text: string | undefined,
  min: number,
  max: number,
): number | undefined {
  if (text === undefined) return undefined;
  const value = decimal(text);
  if (value === null || !within(value, min, max))
    throw new UsageError(`${flag}: expected a number ${range(min, max)}, got "${text}"`);
  return value;
}

/** A decimal number above 0: a rate, a duration, a threshold. */
export function positiveNumber(flag: string, text: string): number;
export function positiveNumber(flag: string, text: string | undefined): number | undefined;
export function positiveNumber(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = decimal(text);
  if (value === null || value <= 0) throw new UsageError(`${flag}: expected a number > 0, got "${text}"`);
  return value;
}

/** One of a closed list of words. */
export function oneOf<T extends string>(flag: string, text: string, allowed: readonly T[]): T;
export function oneOf<T extends string>(
  flag: string,
  text: string | undefined,
  allowed: readonly T[],
): T | undefined;
export function oneOf<T extends string>(
  flag: string,
  text: string | undefined,
  allowed: readonly T[],
): T | undefined {
  if (text === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(text))
    throw new UsageError(`${flag}: expected one of ${allowed.join(', ')}, got "${text}"`);
  return text as T;
}

function decimal(text: string): number | null {
  const value = Number(text);
  return /^-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(text) && Number.isFinite(value) ? value : null;
}

function within(value: number, min: number, max: number | undefined): boolean {
  return value >= min && (max === undefined || value <= max);
}

function range(min: number, max: number | undefined): string {
  return max === undefined ? `>= ${min}` : `from ${min} to ${max}`;
}
