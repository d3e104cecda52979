import {
  applyDecorators,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Patch,
  Post,
  type Type,
} from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { Access } from '../auth/access.decorator';
import { ErrorBody } from '../errors/error-body';
import { PageOf } from './pagination';
import { uuidParam } from './params';

/**
 * A resource's controller: its OpenAPI tag, the 400 any of its routes answers to bad input, and the
 * 503 any of them answers while the database is unavailable.
 */
export function ResourceController(tag: string, path: string): ClassDecorator {
  return applyDecorators(
    ApiTags(tag),
    ApiBadRequestResponse({ type: ErrorBody }),
    ApiServiceUnavailableResponse({
      type: ErrorBody,
      description: 'The database is unavailable (not answering, or no free connection).',
      headers: {
        'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer' } },
      },
    }),
    Controller(path),
  );
}

/** `@IdParam() id: string`: the `:id` path parameter, a 400 naming it unless it is a UUID. */
export function IdParam(name = 'id'): ParameterDecorator {
  return Param(name, uuidParam(name));
}

/** `POST` that creates a resource (write scope). */
export function CreateRoute(type: Type, description?: string): MethodDecorator {
  return applyDecorators(Post(), Access('write'), ApiCreatedResponse({ type, description }));
}

/** `GET` a page of `item`s (read scope); `description` says the order. */
export function ListRoute(item: Type, description: string, path?: string): MethodDecorator {
  return applyDecorators(Get(path), Access('read'), ApiOkResponse({ type: PageOf(item), description }));
}

/** `GET` one resource by its id (read scope), a 404 when there is none. */
export function GetRoute(type: Type, path = ':id', description?: string): MethodDecorator {
  return applyDecorators(
    Get(path),
    Access('read'),
    ApiNotFoundResponse({ type: ErrorBody }),
    ApiOkResponse({ type, description }),
  );
}

/** `PATCH :id` (write scope), a 404 when there is none. */
export function UpdateRoute(type: Type, description?: string): MethodDecorator {
  return applyDecorators(
    Patch(':id'),
    Access('write'),
    ApiNotFoundResponse({ type: ErrorBody }),
    ApiOkResponse({ type, description }),
  );
}

/** `DELETE :id` answering 204 (write scope), a 404 when there is none. */
export function DeleteRoute(description: string): MethodDecorator {
  return applyDecorators(
    Delete(':id'),
    Access('write'),
    HttpCode(204),
    ApiNoContentResponse({ description }),
    ApiNotFoundResponse({ type: ErrorBody }),
  );
}

/**
 * A read over stored runs (trends, comparisons, change points): an example in the description, and
 * a 400 that names the parameter at fault.
 */
export function AnalysisRoute(doc: {
  summary: string;
  description: string;
  type: Type;
  badRequest: string;
}): MethodDecorator {
  return applyDecorators(
    Access('read'),
    ApiOperation({ summary: doc.summary, description: doc.description }),
    ApiOkResponse({ type: doc.type }),
    ApiBadRequestResponse({ type: ErrorBody, description: doc.badRequest }),
  );
}
