import type { LoggerService } from '@nestjs/common';
import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from '@teapot/config';

/** Nest's logger interface over pino: one JSON line per event, tagged with the worker id. */
export class PinoLoggerService implements LoggerService {
  readonly pino: Logger;

  constructor(level: LogLevel, workerId: string, destination?: DestinationStream) {
    const options = {
      level,
      base: { workerId },
      redact: { paths: ['*.headers', '*.authorization'], censor: '****' },
    };
    this.pino = destination ? pino(options, destination) : pino(options);
  }

  log(message: unknown, context?: string): void {
    this.write('info', message, context);
  }
  error(message: unknown, traceOrContext?: string, context?: string): void {
    this.write('error', message, context ?? traceOrContext, context ? traceOrContext : undefined);
  }
  warn(message: unknown, context?: string): void {
    this.write('warn', message, context);
  }
  debug(message: unknown, context?: string): void {
    this.write('debug', message, context);
  }
  verbose(message: unknown, context?: string): void {
    this.write('trace', message, context);
  }
  fatal(message: unknown, context?: string): void {
    this.write('fatal', message, context);
  }

  private write(level: pino.Level, message: unknown, context?: string, stack?: string): void {
    if (message instanceof Error) this.pino[level]({ context, err: message }, message.message);
    else if (typeof message === 'object' && message !== null) this.pino[level]({ context, ...message });
    else this.pino[level]({ context, ...(stack ? { stack } : {}) }, String(message));
  }
}
