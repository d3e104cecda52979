import {
  applyDecorators,
  type CallHandler,
  createParamDecorator,
  type ExecutionContext,
  HttpException,
  Injectable,
  type NestInterceptor,
  UseInterceptors,
} from '@nestjs/common';
import { ApiServiceUnavailableResponse, ApiTooManyRequestsResponse } from '@nestjs/swagger';
import type { Response } from 'express';
import { finalize, type Observable } from 'rxjs';
import type { AuthenticatedRequest } from '../auth/api-key.guard';
import { ErrorBody } from '../errors/error-body';
import { AnalysisAdmission } from './analysis-admission';

type AnalysisRequest = AuthenticatedRequest & { clientGone?: AbortSignal };

const RETRY_AFTER = {
  'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer' } },
};

/**
 * Admits the route's analysis through AnalysisAdmission (a refusal is a 429 or 503 with Retry-After,
 * answered before any work) and aborts the `@ClientGone()` signal when the client hangs up before
 * its answer, so the analysis stops and its running statement is cancelled.
 */
@Injectable()
export class HeavyAnalysisInterceptor implements NestInterceptor {
  constructor(private readonly admission: AnalysisAdmission) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<AnalysisRequest>();
    const response = context.switchToHttp().getResponse<Response>();
    // The guard has authenticated every non-public route; the address only stands in for safety.
    const admission = this.admission.admit(request.apiKey?.id ?? `address:${request.socket.remoteAddress}`);
    if (!admission.admitted) {
      response.setHeader('Retry-After', String(admission.retryAfterS));
      throw new HttpException(admission.message, admission.status);
    }
    const hangUp = new AbortController();
    const onClose = () => {
      if (!response.writableFinished) hangUp.abort();
    };
    response.on('close', onClose);
    request.clientGone = hangUp.signal;
    return next.handle().pipe(
      finalize(() => {
        response.off('close', onClose);
        admission.release();
      }),
    );
  }
}

/** A route that runs a heavy analysis: admitted per process and per key, cancelled when its client hangs up. */
export function HeavyAnalysis(): MethodDecorator {
  return applyDecorators(
    UseInterceptors(HeavyAnalysisInterceptor),
    ApiTooManyRequestsResponse({
      type: ErrorBody,
      description: 'This API key already runs TEAPOT_ANALYSIS_CONCURRENCY_PER_KEY heavy analyses.',
      headers: RETRY_AFTER,
    }),
    ApiServiceUnavailableResponse({
      type: ErrorBody,
      description:
        'The API already runs TEAPOT_ANALYSIS_CONCURRENCY heavy analyses, or the database is unavailable.',
      headers: RETRY_AFTER,
    }),
  );
}

/** `@ClientGone() clientGone: AbortSignal` of a `@HeavyAnalysis()` route: aborts when its client hangs up. */
export const ClientGone = createParamDecorator((_: unknown, context: ExecutionContext): AbortSignal => {
  const signal = context.switchToHttp().getRequest<AnalysisRequest>().clientGone;
  if (!signal) throw new Error('@ClientGone() needs a @HeavyAnalysis() route');
  return signal;
});
