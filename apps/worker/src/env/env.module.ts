import { Global, Module, type DynamicModule } from '@nestjs/common';
import type { WorkerEnv } from '@teapot/config';
import type { HostResolver } from '@teapot/webhooks';
import { AUTO_START, CLOCK, HOST_RESOLVER, WORKER_ENV, type Clock } from './worker-env';

/** The validated environment, the clock, whether to start on boot and the host resolver, for every module. */
@Global()
@Module({})
export class EnvModule {
  static forRoot(env: WorkerEnv, clock: Clock, autoStart: boolean, resolveHost: HostResolver): DynamicModule {
    const providers = [
      { provide: WORKER_ENV, useValue: env },
      { provide: CLOCK, useValue: clock },
      { provide: AUTO_START, useValue: autoStart },
      { provide: HOST_RESOLVER, useValue: resolveHost },
    ];
    return { module: EnvModule, providers, exports: providers.map((provider) => provider.provide) };
  }
}
