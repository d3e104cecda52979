import { BadRequestException, type ValidationError } from '@nestjs/common';
import type { ProblemDetail } from './error-body';

const MAX_DETAILS = 50;

/** A 400 that names every offending field; thrown by the ValidationPipe and by cross-field checks. */
export class RequestValidationException extends BadRequestException {
  constructor(readonly details: ProblemDetail[]) {
    const listed = details
      .slice(0, 5)
      .map((d) => `${d.field} ${d.problem}`)
      .join('; ');
    super(`Validation failed: ${listed}${details.length > 5 ? `; and ${details.length - 5} more` : ''}`);
  }

  static fromValidationErrors(errors: ValidationError[]): RequestValidationException {
    const details: ProblemDetail[] = [];
    collect(errors, '', details);
    return new RequestValidationException(details.slice(0, MAX_DETAILS));
  }
}

function collect(errors: ValidationError[], parent: string, into: ProblemDetail[]): void {
  for (const error of errors) {
    if (into.length >= MAX_DETAILS) return;
    const field = joinPath(parent, error.property);
    for (const [constraint, message] of Object.entries(error.constraints ?? {})) {
      into.push({ field, problem: describe(constraint, message, error.property) });
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
