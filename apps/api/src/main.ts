import { EnvError, loadApiEnv } from '@teapot/config';
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
  // A bad environment is the operator's to fix: say what, without a stack trace.
  process.stderr.write(
    `${error instanceof EnvError ? error.message : error instanceof Error ? error.stack : String(error)}\n`,
  );
  process.exit(1);
});
