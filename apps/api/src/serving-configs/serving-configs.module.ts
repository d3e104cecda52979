import { Module } from '@nestjs/common';
import { ServingConfigsController } from './serving-configs.controller';
import { ServingConfigsService } from './serving-configs.service';

@Module({
  controllers: [ServingConfigsController],
  providers: [ServingConfigsService],
  exports: [ServingConfigsService],
})
export class ServingConfigsModule {}
