import { Module } from '@nestjs/common';
import { periodicChore } from '../chores/periodic-chore';
import { RunReaper } from './run-reaper';
import { RunRepository } from './run-repository';
import { RunProcessor } from './run.processor';

/** The `runs` queue: measuring runs (RunProcessor) and repairing runs whose job is gone (RunReaper). */
@Module({
  providers: [
    RunRepository,
    RunProcessor,
    RunReaper,
    periodicChore({
      name: 'reaper',
      service: RunReaper,
      everyMs: (env) => env.REAPER_INTERVAL_MS,
      run: (reaper) => reaper.reap(),
    }),
  ],
  exports: [RunProcessor, RunReaper],
})
export class RunsModule {}
