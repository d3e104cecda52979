import type { AddressInfo } from 'node:net';
import { ValidationPipe } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { ApiEnv } from '@teapot/config';
import { Logger } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import { AppModule } from './app.module';
import { ASSET_BODY_TYPES, MAX_ASSET_BYTES } from './assets/dto/asset.dto';
import { ApiErrorFilter, BODY_LIMIT_BYTES } from './errors/api-error.filter';
import { RequestValidationException } from './errors/request-validation.exception';
import {
  JSON_BODY_TYPES,
  refuseDeepJson,
  refuseNonJsonBodies,
  refuseNulInUrl,
  reviveSafely,
} from './http/request-hygiene';
import { assignRequestId } from './logging/request-id';
import { ApiMetrics } from './metrics/api-metrics';
import { serveOpenApi } from './openapi';

export interface CreateAppOptions {
  /** Where logs go (tests capture them); stdout by default. */
  logDestination?: DestinationStream;
}

/** The whole API, configured but not listening: main.ts and the e2e tests both start it from here. */
export async function createApp(
  env: ApiEnv,
  options: CreateAppOptions = {},
): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.forRoot(env, options.logDestination),
    {
      bodyParser: false,
      bufferLogs: true,
    },
  );
  app.useLogger(app.get(Logger));
  app.disable('x-powered-by');
  app.use(assignRequestId);
  app.use(app.get(ApiMetrics).recordRequests);
  app.use(refuseNulInUrl);
  app.use(refuseNonJsonBodies);
  app.useBodyParser('raw', { type: ASSET_BODY_TYPES, limit: MAX_ASSET_BYTES });
  app.useBodyParser('json', {
    limit: BODY_LIMIT_BYTES,
    reviver: reviveSafely,
    type: JSON_BODY_TYPES,
    verify: refuseDeepJson,
  });
  app.useGlobalPipes(
    new ValidationPipe({
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      transform: true,
      // The value only tells a missing field from a wrong one; it is never echoed (it may be a secret).
      validationError: { target: false, value: true },
      exceptionFactory: (errors) => RequestValidationException.fromValidationErrors(errors),
    }),
  );
  app.useGlobalFilters(new ApiErrorFilter());
  app.enableShutdownHooks();
  serveOpenApi(app);
  return app;
}

/** Listens on HOST:PORT and returns the address really bound (PORT 0 picks a free port). */
export async function listen(
  app: NestExpressApplication,
  env: Pick<ApiEnv, 'HOST' | 'PORT'>,
): Promise<string> {
  await app.listen(env.PORT, env.HOST);
  const { address, port } = app.getHttpServer().address() as AddressInfo;
  return `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
}
