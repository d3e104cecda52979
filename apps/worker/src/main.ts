import { Logger } from '@nestjs/common';
import { EnvError } from '@teapot/config';
import { createWorkerApp } from './worker-app';

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
  // The env error already names every variable to fix; anything else gets its stack.
  console.error(error instanceof EnvError ? error.message : error);
  process.exit(1);
});
