import { EnvError, loadApiEnv } from '@teapot/config';
import { DatabaseNotMigratedError } from '@teapot/db';
import { Logger } from '@nestjs/common';
import { createApp, listen } from './app';

async function main(): Promise<void> {
  const env = loadApiEnv();
  const app = await createApp(env);
  const url = await listen(app, env);
  const reach = ['127.0.0.1', '::1', 'localhost'].includes(env.HOST)
    ? 'this machine only; set HOST=0.0.0.0 to listen on every interface'
    : 'every client that can reach this address';
  new Logger('teapot-api').log(`listening on ${url} (${reach}; OpenAPI at /docs)`);
}

main().catch((error: unknown) => {
  // A bad environment or an unmigrated database is the operator's to fix: say what, without a stack trace.
  const operators = error instanceof EnvError || error instanceof DatabaseNotMigratedError;
  process.stderr.write(
    `${operators ? error.message : error instanceof Error ? error.stack : String(error)}\n`,
  );
  process.exit(1);
});
