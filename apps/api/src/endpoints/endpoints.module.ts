import { Module } from '@nestjs/common';
import { EndpointSecrets } from './endpoint-secrets';
import { EndpointsController } from './endpoints.controller';
import { EndpointsService } from './endpoints.service';

@Module({ controllers: [EndpointsController], providers: [EndpointsService, EndpointSecrets] })
export class EndpointsModule {}
