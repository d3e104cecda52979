import type { IncomingMessage } from 'node:http';
import { DynamicModule, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import type { Options } from 'pino-http';
import type { LogLevel } from '@teapot/config';

/** Never written to a log: credentials in headers and endpoint secrets in bodies. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.body',
  'res.headers["set-cookie"]',
  '*.authHeaders',
  '*.authorization',
];

@Module({})
export class LoggingModule {
  static forRoot(level: LogLevel, destination?: DestinationStream): DynamicModule {
    const options: Options = {
      level,
      // assignRequestId ran first (see app.ts); pino-http only picks its id up.
      genReqId: (request) => (request as IncomingMessage & { id?: string }).id ?? 'unknown',
      redact: { paths: REDACTED_PATHS, censor: '****' },
      customLogLevel: (_request, response, error) => {
        if (error || response.statusCode >= 500) return 'error';
        return response.statusCode >= 400 ? 'warn' : 'info';
      },
      autoLogging: { ignore: (request) => request.url === '/health' },
    };
    return {
      module: LoggingModule,
      imports: [LoggerModule.forRoot({ pinoHttp: destination ? [options, destination] : options })],
    };
  }
}
