import { Module } from '@nestjs/common';
import { RunReaper } from './run-reaper';
import { RunRepository } from './run-repository';
import { RunProcessor } from './run.processor';

/** The `runs` queue: measuring runs (RunProcessor) and repairing runs whose job is gone (RunReaper). */
@Module({ providers: [RunRepository, RunProcessor, RunReaper], exports: [RunProcessor, RunReaper] })
export class RunsModule {}
