import { Module, type DynamicModule } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { Options } from 'pino-http';
import type { LogLevel } from '@teapot/config';

/** Never written to a log: endpoint credentials. */
export const REDACTED_PATHS = ['*.headers', '*.authorization', '*.authHeaders'];

/** pino JSON lines through nestjs-pino, as in the API; each line names the worker. */
@Module({})
export class LoggingModule {
  static forRoot(level: LogLevel, workerId: string): DynamicModule {
    const options: Options = { level, base: { workerId }, redact: { paths: REDACTED_PATHS, censor: '****' } };
    return {
      module: LoggingModule,
      imports: [LoggerModule.forRoot({ pinoHttp: options })],
    };
  }
}
