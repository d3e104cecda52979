import { Module } from '@nestjs/common';
import { scheduledChore } from '../chores/scheduled-chore';
import { RunReaper } from './run-reaper';
import { RunRepository } from './run-repository';
import { RunProcessor } from './run.processor';

/** The `runs` queue: measuring runs (RunProcessor) and repairing runs whose job is gone (RunReaper). */
@Module({
  providers: [
    RunRepository,
    RunProcessor,
    RunReaper,
    scheduledChore({
      name: 'reaper',
      service: RunReaper,
      timing: (env) => ({ everyMs: env.REAPER_INTERVAL_MS }),
      run: (reaper) => reaper.reap(),
    }),
  ],
  exports: [RunProcessor, RunReaper],
})
export class RunsModule {}
