import { Global, Module } from '@nestjs/common';
import { RunTelemetry } from './run-telemetry';

/** OTLP export of run figures and deployment verdicts (off unless an OTLP endpoint is set). */
@Global()
@Module({ providers: [RunTelemetry], exports: [RunTelemetry] })
export class TelemetryModule {}
