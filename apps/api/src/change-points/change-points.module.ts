import { Module } from '@nestjs/common';
import { ChangePointsController } from './change-points.controller';
import { ChangePointsService } from './change-points.service';

@Module({
  controllers: [ChangePointsController],
  providers: [ChangePointsService],
})
export class ChangePointsModule {}
