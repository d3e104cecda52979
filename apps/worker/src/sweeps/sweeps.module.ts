import { Module } from '@nestjs/common';
import { scheduledChore } from '../chores/scheduled-chore';
import { SweepAdvancer } from './sweep-advancer';
import { SweepProcessor } from './sweep.processor';
import { SweepSweeper } from './sweep-sweeper';

/**
 * The `sweeps` queue: load sweeps and capacity searches, one point run after another (SweepProcessor,
 * SweepAdvancer); every SWEEP_SWEEPER_INTERVAL_MS the sweeper queues the step of a sweep whose advance
 * was lost.
 */
@Module({
  providers: [
    SweepAdvancer,
    SweepProcessor,
    SweepSweeper,
    scheduledChore({
      name: 'sweep sweeper',
      service: SweepSweeper,
      timing: (env) => ({ everyMs: env.SWEEP_SWEEPER_INTERVAL_MS }),
      run: (sweeper) => sweeper.sweep(),
    }),
  ],
  exports: [SweepAdvancer, SweepSweeper],
})
export class SweepsModule {}
