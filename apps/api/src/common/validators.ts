import { CronExpressionParser } from 'cron-parser';
import { registerDecorator, ValidateIf, type ValidationOptions } from 'class-validator';
import { invalidRequestHeader } from '@teapot/measure';
import { parseTimestamp, TIME_RULE } from './parse';

/** Shortest time between two scheduled runs of one profile. */
export const MIN_SCHEDULE_INTERVAL_S = 5;

const MAX_HEADER_NAME = 100;
const MAX_HEADERS = 20;
const MAX_HEADER_VALUE = 8192;

/**
 * Optional, but not nullable: `undefined` skips validation, `null` is validated (and refused) —
 * unlike @IsOptional, which would let a null reach a NOT NULL column.
 */
export function IsAbsentOr(): PropertyDecorator {
  return ValidateIf((_object, value) => value !== undefined);
}

/**
 * A name people read (endpoint, profile, model, key): 1..max characters, not blank, and no control,
 * format or bidi characters (CR/LF forge log lines; bidi controls make one name display as another).
 */
export function IsName(maxLength: number, options?: ValidationOptions): PropertyDecorator {
  return custom('isName', options, (value) => {
    if (typeof value !== 'string') return 'must be a string';
    if (value.length > maxLength) return `must be at most ${maxLength} characters`;
    if (value.trim() === '') return 'must not be empty or blank';
    if (/\p{C}/u.test(value)) return 'must not contain control, format or bidi characters';
    return null;
  });
}

/** A time in a query string, read by parseTimestamp (the one time parser of the API). */
export function IsTimestamp(options?: ValidationOptions): PropertyDecorator {
  return custom('isTimestamp', options, (value) =>
    typeof value === 'string' && parseTimestamp(value) ? null : TIME_RULE,
  );
}

/** A whole number within bounds; query strings get here through QueryWholeNumber's strict parse. */
export function IsWholeNumber(min: number, max: number, options?: ValidationOptions): PropertyDecorator {
  return custom('isWholeNumber', options, (value) =>
    Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max
      ? null
      : `must be a whole number from ${min} to ${max}`,
  );
}

/**
 * A map of HTTP header name to value that a run can send as given: the measurement package's own
 * header rule (no client-owned headers such as host or content-type, visible ASCII values), so a
 * header that would fail every request is refused here, naming it.
 */
export function IsHeaderMap(options?: ValidationOptions): PropertyDecorator {
  return custom('isHeaderMap', options, (value) => {
    if (!isPlainObject(value)) return 'must be an object of header name to value';
    const entries = Object.entries(value);
    if (entries.length > MAX_HEADERS) return `must have at most ${MAX_HEADERS} headers`;
    for (const [name, headerValue] of entries) {
      if (name.length > MAX_HEADER_NAME)
        return `must have header names of at most ${MAX_HEADER_NAME} characters`;
      if (typeof headerValue === 'string' && headerValue.length > MAX_HEADER_VALUE) {
        return `has a value longer than ${MAX_HEADER_VALUE} characters (header ${name})`;
      }
    }
    const refusal = invalidRequestHeader(value as Record<string, string>);
    return refusal === null ? null : `cannot be sent: ${refusal}`;
  });
}

/** A free-form JSON object, bounded so it stays a settings bag rather than a payload. */
export function IsBoundedJsonObject(
  maxDepth: number,
  maxBytes: number,
  options?: ValidationOptions,
): PropertyDecorator {
  return custom('isBoundedJsonObject', options, (value) => {
    if (!isPlainObject(value)) return 'must be a JSON object';
    if (depthOf(value, maxDepth + 1) > maxDepth) return `must be nested at most ${maxDepth} levels deep`;
    if (Buffer.byteLength(JSON.stringify(value)) > maxBytes)
      return `must be at most ${maxBytes} bytes as JSON`;
    return null;
  });
}

/** A cron expression (5 fields, or 6 with seconds) whose runs are at least the minimum interval apart. */
export function IsCronExpression(options?: ValidationOptions): PropertyDecorator {
  return custom('isCronExpression', options, (value) => {
    if (typeof value !== 'string' || value.length > 120)
      return 'must be a cron expression of at most 120 characters';
    let shortestGapS: number;
    try {
      shortestGapS = shortestCronGapS(value);
    } catch (error) {
      return `must be a valid cron expression (${error instanceof Error ? error.message : 'unparseable'})`;
    }
    if (shortestGapS < MIN_SCHEDULE_INTERVAL_S) {
      return `must not fire more often than every ${MIN_SCHEDULE_INTERVAL_S} s`;
    }
    return null;
  });
}

/** The shortest gap in seconds between a cron expression's next five firings; throws if it does not parse. */
export function shortestCronGapS(expression: string): number {
  const parsed = CronExpressionParser.parse(expression, { strict: false });
  const times = Array.from({ length: 5 }, () => parsed.next().getTime());
  return Math.min(...times.slice(1).map((t, i) => (t - times[i]) / 1000));
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Depth of nested objects/arrays, counting stops at `limit` so hostile nesting costs little. */
function depthOf(value: unknown, limit: number): number {
  if (typeof value !== 'object' || value === null) return 0;
  if (limit <= 0) return 1;
  let deepest = 0;
  for (const child of Object.values(value)) {
    deepest = Math.max(deepest, depthOf(child, limit - 1));
    if (deepest >= limit) break;
  }
  return deepest + 1;
}

/** Registers a validator whose check returns the problem, or null when the value is fine. */
function custom(
  name: string,
  options: ValidationOptions | undefined,
  problemOf: (value: unknown) => string | null,
) {
  return (target: object, propertyName: string | symbol): void => {
    const problems = new WeakMap<object, string>();
    registerDecorator({
      name,
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate(value: unknown, args) {
          const problem = problemOf(value);
          if (problem && args) problems.set(args.object, problem);
          return problem === null;
        },
        defaultMessage(args) {
          return `${args?.property ?? 'value'} ${(args && problems.get(args.object)) ?? 'is invalid'}`;
        },
      },
    });
  };
}
