import { EnvError, loadApiEnv } from '@teapot/config';
import { Logger } from '@nestjs/common';
import { createApp } from './app';

async function main(): Promise<void> {
  const env = loadApiEnv();
  const app = await createApp(env);
  await app.listen(env.PORT);
  new Logger('teapot-api').log(`listening on ${await app.getUrl()} (OpenAPI at /docs)`);
}

main().catch((error: unknown) => {
  // A bad environment is the operator's to fix: say what, without a stack trace.
  process.stderr.write(
    `${error instanceof EnvError ? error.message : error instanceof Error ? error.stack : String(error)}\n`,
  );
  process.exit(1);
});
