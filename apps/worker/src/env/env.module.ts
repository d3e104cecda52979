import { Global, Module, type DynamicModule } from '@nestjs/common';
import type { WorkerEnv } from '@teapot/config';
import { AUTO_START, CLOCK, WORKER_ENV, type Clock } from './worker-env';

/** The validated environment, the clock and whether to start on boot, for every module. */
@Global()
@Module({})
export class EnvModule {
  static forRoot(env: WorkerEnv, clock: Clock, autoStart: boolean): DynamicModule {
    const providers = [
      { provide: WORKER_ENV, useValue: env },
      { provide: CLOCK, useValue: clock },
      { provide: AUTO_START, useValue: autoStart },
    ];
    return { module: EnvModule, providers, exports: providers.map((provider) => provider.provide) };
  }
}
