import { Module } from '@nestjs/common';
import { DeploymentsController } from './deployments.controller';
import { DeploymentsService } from './deployments.service';

@Module({ controllers: [DeploymentsController], providers: [DeploymentsService] })
export class DeploymentsModule {}
