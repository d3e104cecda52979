import { BadRequestException, NotFoundException, type ValidationError } from '@nestjs/common';
import type { ProblemDetail } from './error-body';

const MAX_DETAILS = 50;

/**
 * Which failed check speaks for a field when several fail: whether it is there and of the right
 * kind comes before what its value should be.
 */
const FIRST_SAID = [
  'whitelistValidation',
  'unknownValue',
  'isObject',
  'isArray',
  'isString',
  'isName',
  'isInt',
  'isNumber',
  'isBoolean',
  'isIn',
  'isUuid',
];

function listed(details: ProblemDetail[]): string {
  const some = details
    .slice(0, 5)
    .map((d) => `${d.field} ${d.problem}`)
    .join('; ');
  return `${some}${details.length > 5 ? `; and ${details.length - 5} more` : ''}`;
}

/** A 400 that names every offending field; thrown by the ValidationPipe and by cross-field checks. */
export class RequestValidationException extends BadRequestException {
  constructor(readonly details: ProblemDetail[]) {
    super(`Validation failed: ${listed(details)}`);
  }

  static fromValidationErrors(errors: ValidationError[]): RequestValidationException {
    const details: ProblemDetail[] = [];
    collect(errors, '', details);
    return new RequestValidationException(details.slice(0, MAX_DETAILS));
  }
}

/** A 404 for an id in the body that names nothing (`profileId` of POST /runs), naming the field. */
export class MissingReferenceException extends NotFoundException {
  constructor(readonly details: ProblemDetail[]) {
    super(`Not found: ${listed(details)}`);
  }
}

/**
 * What a field's own parser (a schema shared with other processes, e.g. a sweep spec) found wrong
 * inside it: each problem at a path below the field. A transform puts it in place of the value, and
 * the field's check refuses it, so the 400 names each inner field as it names any other.
 */
export class NestedProblems {
  constructor(readonly problems: ReadonlyArray<{ path: ReadonlyArray<string | number>; problem: string }>) {}
}

/** One problem per field: a missing field is "required", otherwise the most basic check that failed. */
function collect(errors: ValidationError[], parent: string, into: ProblemDetail[]): void {
  for (const error of errors) {
    if (into.length >= MAX_DETAILS) return;
    const field = joinPath(parent, error.property);
    if (error.value instanceof NestedProblems) {
      for (const { path, problem } of error.value.problems) {
        into.push({ field: path.reduce<string>((at, part) => joinPath(at, String(part)), field), problem });
      }
      continue;
    }
    const constraints = Object.entries(error.constraints ?? {});
    if (constraints.length > 0) {
      const [constraint, message] =
        constraints.find(([name]) => name === FIRST_SAID.find((first) => error.constraints?.[first])) ??
        constraints[0];
      const missing = error.value === undefined && constraint !== 'unknownValue';
      into.push({ field, problem: missing ? 'is required' : describe(constraint, message, error.property) });
    }
    if (error.children?.length) collect(error.children, field, into);
  }
}

function joinPath(parent: string, property: string): string {
  if (/^\d+$/.test(property)) return `${parent}[${property}]`;
  return parent ? `${parent}.${property}` : property;
}

function describe(constraint: string, message: string, property: string): string {
  if (constraint === 'whitelistValidation') return 'is not an allowed field';
  if (constraint === 'unknownValue') return 'must be a JSON object';
  // class-validator messages start with the property name; the field already says it.
  return message.startsWith(`${property} `) ? message.slice(property.length + 1) : message;
}
