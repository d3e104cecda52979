import { setFlagsFromString } from 'node:v8';
import { Logger } from '@nestjs/common';
import { EnvError } from '@teapot/config';
import { DatabaseNotMigratedError } from '@teapot/db';
import { createWorkerApp } from './worker-app';
import { MEASURING_PROCESS_FLAGS } from '@teapot/measure';

// before any measuring thread starts, which the flags reach (see MEASURING_PROCESS_FLAGS)
for (const flag of MEASURING_PROCESS_FLAGS) setFlagsFromString(flag);

async function main(): Promise<void> {
  const app = await createWorkerApp();
  // process.exit(0) after the hooks (not a re-raised signal), so the last log lines are flushed.
  app.enableShutdownHooks(['SIGTERM', 'SIGINT'], { useProcessExit: true });
  // A stray rejection (e.g. a dropped connection's callback) is logged; the worker keeps serving.
  process.on('unhandledRejection', (reason) => {
    Logger.error(`unhandled rejection: ${reason instanceof Error ? reason.stack : String(reason)}`, 'Worker');
  });
}

main().catch((error: unknown) => {
  // These already say what to fix (variables, migrations); anything else gets its stack.
  const operators = error instanceof EnvError || error instanceof DatabaseNotMigratedError;
  console.error(operators ? error.message : error);
  process.exit(1);
});
