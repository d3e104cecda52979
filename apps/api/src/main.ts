import { EnvError, loadApiEnv } from '@teapot/config';
import { createApp } from './app';

async function main(): Promise<void> {
  let env;
  try {
    env = loadApiEnv();
  } catch (error) {
    if (!(error instanceof EnvError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  const app = await createApp(env);
  await app.listen(env.PORT);
}

void main();
