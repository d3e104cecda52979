import { Module } from '@nestjs/common';
import { ChangePointsProcessor } from './change-points.processor';

/** The `change-points` queue: change points recomputed as runs arrive (ChangePointsProcessor). */
@Module({ providers: [ChangePointsProcessor], exports: [ChangePointsProcessor] })
export class ChangePointsModule {}
