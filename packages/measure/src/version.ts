import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * This package's version, stored with every run: a change to how teapot measures (transport, warm-up,
 * timestamping) bumps it, so that figures from before and after can be told apart.
 */
export const MEASURE_VERSION: string = (
  JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }
).version;
