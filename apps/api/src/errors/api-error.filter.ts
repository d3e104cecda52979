import { STATUS_CODES } from 'node:http';
import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { AnalysisInputError } from '@teapot/analysis';
import { classifyDbError, isUniqueViolation, QueryCancelledError } from '@teapot/db';
import type { Response } from 'express';
import type { ErrorBody, ProblemDetail } from './error-body';
import { RequestValidationException } from './request-validation.exception';

export const BODY_LIMIT_BYTES = 1024 * 1024;
/** Retry-After of a 503 while the database is away: a restart or failover takes seconds. */
export const DATABASE_RETRY_AFTER_S = 5;

/** Maps every error to an HTTP response, once: the only place that decides status codes. */
@Catch()
export class ApiErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('ApiErrorFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    if (exception instanceof QueryCancelledError) {
      // Its client hung up (a heavy analysis, cancelled): no one is left to answer.
      this.logger.log('A heavy analysis was cancelled: its client went away.');
      response.destroy();
      return;
    }
    const body = toErrorBody(exception);
    const databaseAway = databaseAwayBody(exception) !== null;
    // an outage fails every request alike: one line each, not a stack
    if (databaseAway) this.logger.warn(`${body.message} (${errorText(exception)})`);
    else if (body.statusCode >= 500) this.logger.error(exception);
    if (response.headersSent) {
      // A streamed export failed half way: the status is gone, so cut the stream short.
      response.destroy();
      return;
    }
    if (body.statusCode === 401) response.setHeader('WWW-Authenticate', 'Bearer');
    if (databaseAway) response.setHeader('Retry-After', String(DATABASE_RETRY_AFTER_S));
    response.status(body.statusCode).json(body);
  }
}

export function toErrorBody(exception: unknown): ErrorBody {
  if (exception instanceof AnalysisInputError) {
    // Trends, comparisons and change points name the parameter at fault: a 400 like any bad field.
    return toErrorBody(
      new RequestValidationException([{ field: exception.parameter, problem: exception.problem }]),
    );
  }
  if (exception instanceof HttpException) {
    const body = errorBody(exception.getStatus(), httpExceptionMessage(exception));
    const details = (exception as { details?: ProblemDetail[] }).details;
    return Array.isArray(details) ? { ...body, details } : body;
  }
  return (
    bodyParserError(exception) ??
    databaseAwayBody(exception) ??
    prismaError(exception) ??
    errorBody(500, 'Internal server error.')
  );
}

/** A 503 when the database did not answer or had no free connection: the client can try again. */
function databaseAwayBody(exception: unknown): ErrorBody | null {
  switch (classifyDbError(exception)) {
    case 'transient':
      return errorBody(
        503,
        `The database is unavailable (it did not answer or dropped the connection); try again in ${DATABASE_RETRY_AFTER_S} s.`,
      );
    case 'pool_exhausted':
      return errorBody(
        503,
        `The database is unavailable: no connection was free in time; try again in ${DATABASE_RETRY_AFTER_S} s.`,
      );
    default:
      return null;
  }
}

/** The last line of an error's message: Prisma's first lines quote the call site, the last says what failed. */
function errorText(exception: unknown): string {
  const text = exception instanceof Error ? exception.message : String(exception);
  return text.trim().split('\n').pop() ?? text;
}

function errorBody(statusCode: number, message: string): ErrorBody {
  return { statusCode, error: STATUS_CODES[statusCode] ?? 'Error', message };
}

function httpExceptionMessage(exception: HttpException): string {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  return typeof message === 'string' ? message : exception.message;
}

interface BodyParserError {
  type: string;
  status: number;
  message: string;
  /** The parser's limit in bytes (entity.too.large). */
  limit?: number;
}

/** A 413 said as the body parser says it, for a limit checked outside the parser (an asset kind's own). */
export function entityTooLarge(limit: number): Error & BodyParserError {
  return Object.assign(new Error(`request entity too large (limit ${limit} bytes)`), {
    type: 'entity.too.large',
    status: 413,
    limit,
  });
}

function isBodyParserError(error: unknown): error is BodyParserError {
  const candidate = error as Partial<BodyParserError> | null;
  return typeof candidate?.type === 'string' && typeof candidate.status === 'number';
}

/** Body-parser errors other than malformed JSON, which Nest already turns into a BadRequestException. */
function bodyParserError(error: unknown): ErrorBody | null {
  if (!isBodyParserError(error)) return null;
  switch (error.type) {
    case 'entity.too.large':
      return errorBody(
        413,
        `Request body is larger than ${(error.limit ?? BODY_LIMIT_BYTES) / 1024 / 1024} MB.`,
      );
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return errorBody(415, error.message);
    default:
      return error.status >= 400 && error.status < 500 ? errorBody(error.status, error.message) : null;
  }
}

// Duck-typed so the filter does not depend on one generated client instance.
function prismaError(error: unknown): ErrorBody | null {
  const candidate = error as { name?: unknown; code?: unknown; meta?: Record<string, unknown> } | null;
  if (candidate?.name !== 'PrismaClientKnownRequestError' || typeof candidate.code !== 'string') return null;
  if (isUniqueViolation(candidate))
    return errorBody(409, `Already exists: another ${modelOf(candidate.meta)} ${sameAs(candidate.meta)}.`);
  switch (candidate.code) {
    case 'P2025':
      return errorBody(404, 'Not found.');
    case 'P2000':
    case 'P2020':
      return errorBody(400, 'A value does not fit its database column (too long or out of range).');
    case 'P2003':
    case 'P2014':
      return errorBody(409, 'Still referenced by other records (e.g. runs); archive it instead of deleting.');
    default:
      return null;
  }
}

function modelOf(meta: Record<string, unknown> | undefined): string {
  return typeof meta?.modelName === 'string' ? meta.modelName.toLowerCase() : 'record';
}

/**
 * The driver adapter names the violated index (e.g. `profiles_endpoint_id_name_key`); its columns
 * say what clashed: "of the same endpoint has the same name".
 */
function sameAs(meta: Record<string, unknown> | undefined): string {
  const columns = uniqueColumns(meta);
  if (columns.length === 0) return 'has the same unique fields';
  const words = columns.map((column) =>
    column
      .replace(/([a-z])([A-Z])/g, '$1 $2')
      .replace(/_id$|Id$| id$/i, '')
      .replace(/_/g, ' ')
      .toLowerCase(),
  );
  const last = words.pop() as string;
  return [...words.map((word) => `of the same ${word}`), `has the same ${last}`].join(' ');
}

function uniqueColumns(meta: Record<string, unknown> | undefined): string[] {
  if (Array.isArray(meta?.target)) return meta.target.map(String);
  const cause = (
    meta?.driverAdapterError as { cause?: { constraint?: { index?: unknown }; table?: unknown } }
  )?.cause;
  const index = cause?.constraint?.index;
  if (typeof index !== 'string') return [];
  const table = typeof cause?.table === 'string' ? cause.table : index.split('_')[0];
  // Columns are snake_case joined by `_`: only a reference (`…_id`) marks where one ends for sure.
  return index
    .replace(new RegExp(`^${table}_`), '')
    .replace(/_key$/, '')
    .split(/(?<=_id)_/);
}
