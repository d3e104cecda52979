import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { DependenciesHealth } from './dependencies.health';
import { HealthController } from './health.controller';

@Module({
  imports: [TerminusModule],
  controllers: [HealthController],
  providers: [DependenciesHealth],
})
export class HealthModule {}
