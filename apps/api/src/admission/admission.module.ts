import { Global, Module } from '@nestjs/common';
import type { ApiEnv } from '@teapot/config';
import { API_ENV } from '../env/env.module';
import { AnalysisAdmission } from './analysis-admission';
import { HeavyAnalysisInterceptor } from './heavy-analysis';

/** One AnalysisAdmission per process, whichever module's routes run heavy analyses. */
@Global()
@Module({
  providers: [
    {
      provide: AnalysisAdmission,
      inject: [API_ENV],
      useFactory: (env: ApiEnv) =>
        new AnalysisAdmission({
          perProcess: env.TEAPOT_ANALYSIS_CONCURRENCY,
          perKey: env.TEAPOT_ANALYSIS_CONCURRENCY_PER_KEY,
        }),
    },
    HeavyAnalysisInterceptor,
  ],
  exports: [AnalysisAdmission, HeavyAnalysisInterceptor],
})
export class AdmissionModule {}
