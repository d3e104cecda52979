import {
  type CanActivate,
  type ExecutionContext,
  ForbiddenException,
  Injectable,
  UnauthorizedException,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { ACCESS_METADATA, type AccessLevel } from './access.decorator';
import { ApiKeysService } from './api-keys.service';

/** Global: every route needs `Authorization: Bearer <key>` with enough scope, unless public. */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly apiKeys: ApiKeysService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const needed =
      this.reflector.getAllAndOverride<AccessLevel | undefined>(ACCESS_METADATA, [
        context.getHandler(),
        context.getClass(),
      ]) ?? 'write';
    if (needed === 'public') return true;
    const request = context.switchToHttp().getRequest<Request>();
    const token = bearerToken(request.headers.authorization);
    if (!token) throw new UnauthorizedException('Send an API key as `Authorization: Bearer <key>`.');
    const key = await this.apiKeys.authenticate(token);
    if (!key) throw new UnauthorizedException('Unknown or revoked API key.');
    if (needed === 'write' && key.scope !== 'write') {
      throw new ForbiddenException(
        'This route changes data and needs a write-scope API key; this key is read-only.',
      );
    }
    return true;
  }
}

function bearerToken(header: string | undefined): string | null {
  const match = /^Bearer +(\S{1,512})\s*$/i.exec(header ?? '');
  return match ? match[1] : null;
}
