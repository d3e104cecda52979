import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { ValidateBy } from 'class-validator';
import { NestedProblems } from '../errors/request-validation.exception';
import { isPlainObject } from './validators';

/** What the API reads of a zod issue (structural, so the API needs no zod of its own). */
interface SchemaIssue {
  code: string;
  path: PropertyKey[];
  message: string;
  expected?: unknown;
  values?: readonly unknown[];
  minimum?: number | bigint;
  maximum?: number | bigint;
  inclusive?: boolean;
  origin?: string;
  errors?: SchemaIssue[][];
}

/** A zod schema, seen from here: its parse result. */
export interface SharedSchema<T> {
  safeParse(
    value: unknown,
  ): { success: true; data: T } | { success: false; error: { issues: readonly SchemaIssue[] } };
}

/**
 * A body field checked by a schema the API shares with other processes (the CLI, the worker), so
 * there is one definition of what is valid: the transform parses the value once (null and absent
 * pass through for the DTO's own optionality), keeps the parsed value (defaults filled, presets
 * expanded) and, when it is wrong, each problem at the inner field it names.
 */
export function SchemaField<T>(schema: SharedSchema<T>): PropertyDecorator {
  return applyDecorators(
    Transform(({ value }: { value: unknown }) =>
      value === null || value === undefined ? value : parseField(schema, value),
    ),
    ValidateBy({
      name: 'schemaField',
      validator: {
        validate: (value: unknown) => !(value instanceof NestedProblems),
        defaultMessage: (args) => `${args?.property ?? 'value'} is invalid`,
      },
    }),
  );
}

/** The parsed value, or what is wrong with it (unknown keys too: the API refuses them everywhere). */
export function parseField<T>(schema: SharedSchema<T>, value: unknown): T | NestedProblems {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    return new NestedProblems(
      parsed.error.issues.map((issue) => ({
        path: issue.path.map((part) => (typeof part === 'symbol' ? String(part) : part)),
        problem: isMissing(issue, value) ? 'is required' : problemOf(issue),
      })),
    );
  }
  const unknown = droppedKeys(value, parsed.data, []);
  if (unknown.length > 0) {
    return new NestedProblems(unknown.map((path) => ({ path, problem: 'is not an allowed field' })));
  }
  return parsed.data;
}

/** Keys of `input` that parsing left out of `output`: fields the schema does not know. */
function droppedKeys(
  input: unknown,
  output: unknown,
  at: Array<string | number>,
): Array<Array<string | number>> {
  if (Array.isArray(input) && Array.isArray(output)) {
    return input.flatMap((item, i) => droppedKeys(item, output[i], [...at, i]));
  }
  if (!isPlainObject(input) || !isPlainObject(output)) return [];
  return Object.keys(input).flatMap((key) =>
    key in output ? droppedKeys(input[key], output[key], [...at, key]) : [[...at, key]],
  );
}

/** A type or value check that failed because the field is not there at all. */
function isMissing(issue: SchemaIssue, input: unknown): boolean {
  return (
    (issue.code === 'invalid_type' || issue.code === 'invalid_value') &&
    valueAt(input, issue.path) === undefined
  );
}

/** What the input holds at an issue's path (undefined: the field is missing). */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let at: unknown = input;
  for (const part of path) {
    if (typeof at !== 'object' || at === null || typeof part === 'symbol') return undefined;
    at = (at as Record<string | number, unknown>)[part];
  }
  return at;
}

/** A zod issue said as the API says problems ("must be ...", "is required"). */
function problemOf(issue: SchemaIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `must be ${article(String(issue.expected))}`;
    case 'invalid_value':
      return `must be one of ${(issue.values ?? []).map(String).join(', ')}`;
    case 'invalid_union': {
      const values = (issue.errors ?? []).flat().flatMap((inner) => inner.values ?? []);
      return values.length > 0 ? `must be one of ${values.map(String).join(', ')}` : issue.message;
    }
    case 'too_big':
      return issue.origin === 'array'
        ? `must have at most ${issue.maximum} items`
        : `must be ${issue.inclusive === false ? 'below' : 'at most'} ${issue.maximum}`;
    case 'too_small':
      return issue.origin === 'array'
        ? `must have at least ${issue.minimum} items`
        : `must be ${issue.inclusive === false ? 'above' : 'at least'} ${issue.minimum}`;
    default:
      return issue.message;
  }
}

function article(type: string): string {
  if (type === 'int') return 'a whole number';
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
