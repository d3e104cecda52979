import { DynamicModule, Global, Module } from '@nestjs/common';
import type { ApiEnv } from '@teapot/config';

/** Injection token of the validated environment (parsed once, in main.ts or the test). */
export const API_ENV = Symbol('API_ENV');

@Global()
@Module({})
export class EnvModule {
  static forRoot(env: ApiEnv): DynamicModule {
    return { module: EnvModule, providers: [{ provide: API_ENV, useValue: env }], exports: [API_ENV] };
  }
}
