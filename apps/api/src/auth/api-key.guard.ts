import {
  type CanActivate,
  type ExecutionContext,
  ForbiddenException,
  HttpException,
  HttpStatus,
  Inject,
  Injectable,
  UnauthorizedException,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { ApiEnv } from '@teapot/config';
import type { Request, Response } from 'express';
import { API_ENV } from '../env/env.module';
import { ACCESS_METADATA, type AccessLevel } from './access.decorator';
import { ApiKeysService, type AuthenticatedKey } from './api-keys.service';
import { FailedAuthLimiter } from './failed-auth.limiter';

/** A request past the guard: the key it authenticated with (none on public routes). */
export type AuthenticatedRequest = Request & { apiKey?: AuthenticatedKey };

/** Global: every route needs `Authorization: Bearer <key>` with enough scope, unless public. */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  private readonly limiter: FailedAuthLimiter;

  constructor(
    private readonly reflector: Reflector,
    private readonly apiKeys: ApiKeysService,
    @Inject(API_ENV) env: ApiEnv,
  ) {
    this.limiter = new FailedAuthLimiter(env.TEAPOT_AUTH_FAILURES_PER_MINUTE);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const needed =
      this.reflector.getAllAndOverride<AccessLevel | undefined>(ACCESS_METADATA, [
        context.getHandler(),
        context.getClass(),
      ]) ?? 'write';
    if (needed === 'public') return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    // The socket's address: behind a reverse proxy every client shares the proxy's.
    const address = request.socket.remoteAddress ?? 'unknown';
    const retryAfterS = this.limiter.retryAfterS(address);
    if (retryAfterS > 0) {
      context.switchToHttp().getResponse<Response>().setHeader('Retry-After', String(retryAfterS));
      throw new HttpException(
        `Too many wrong API keys from this address; try again in ${retryAfterS} s.`,
        HttpStatus.TOO_MANY_REQUESTS,
      );
    }
    const token = bearerToken(request.headers.authorization);
    if (!token) throw new UnauthorizedException('Send an API key as `Authorization: Bearer <key>`.');
    const key = await this.apiKeys.authenticate(token);
    if (!key) {
      this.limiter.recordFailure(address);
      throw new UnauthorizedException('Unknown or revoked API key.');
    }
    if (needed === 'write' && key.scope !== 'write') {
      // Not only routes that change data: listing API keys needs the write scope too.
      throw new ForbiddenException(
        `${request.method} ${request.path} needs a write-scope API key; this key is read-only.`,
      );
    }
    request.apiKey = key;
    return true;
  }
}

function bearerToken(header: string | undefined): string | null {
  const match = /^Bearer +(\S{1,512})\s*$/i.exec(header ?? '');
  return match ? match[1] : null;
}
