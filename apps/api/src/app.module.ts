import { DynamicModule, Module } from '@nestjs/common';
import type { ApiEnv } from '@teapot/config';
import type { DestinationStream } from 'pino';
import { AdmissionModule } from './admission/admission.module';
import { AssetsModule } from './assets/assets.module';
import { AuthModule } from './auth/auth.module';
import { ComparisonsModule } from './comparisons/comparisons.module';
import { DeploymentsModule } from './deployments/deployments.module';
import { ChangePointsModule } from './change-points/change-points.module';
import { DashboardModule } from './dashboard/dashboard.module';
import { EndpointsModule } from './endpoints/endpoints.module';
import { EnvModule } from './env/env.module';
import { HealthModule } from './health/health.module';
import { LoggingModule } from './logging/logging.module';
import { MetricsModule } from './metrics/metrics.module';
import { PrismaModule } from './prisma/prisma.module';
import { ProfilesModule } from './profiles/profiles.module';
import { QueueModule } from './queue/queue.module';
import { RunsModule } from './runs/runs.module';
import { ServingConfigsModule } from './serving-configs/serving-configs.module';
import { SweepsModule } from './sweeps/sweeps.module';
import { TrendsModule } from './trends/trends.module';
import { WebhooksModule } from './webhooks/webhooks.module';

@Module({})
export class AppModule {
  static forRoot(env: ApiEnv, logDestination?: DestinationStream): DynamicModule {
    return {
      module: AppModule,
      imports: [
        EnvModule.forRoot(env),
        LoggingModule.forRoot(env.LOG_LEVEL, logDestination),
        PrismaModule,
        QueueModule,
        AuthModule,
        AdmissionModule,
        HealthModule,
        EndpointsModule,
        ServingConfigsModule,
        AssetsModule,
        ProfilesModule,
        RunsModule,
        SweepsModule,
        TrendsModule,
        ComparisonsModule,
        WebhooksModule,
        DeploymentsModule,
        ChangePointsModule,
        MetricsModule,
        DashboardModule.forRoot(env),
      ],
    };
  }
}
