/**
 * One client of an accuracy run in a process of its own, so that no client profits from JIT work or
 * connections left by an earlier one. Started with MEASURING_PROCESS_FLAGS, as a measuring entry point is:
 *
 *   node --no-memory-reducer --expose-gc dist/accuracy/client.js '{"client":"http1","baseUrl":"http://127.0.0.1:8000/v1","streams":64,"requests":128}'
 *
 * Prints one ClientDocument (JSON) on stdout.
 */
import { TRANSPORTS, type Transport } from '../types';
import type { ClientDocument, ClientJob } from './documents';
import { measurePlainClient, runNodeFloor } from './node-floor';
import { runTeapot } from './teapot-client';

/** The clients this package runs: teapot through each transport, and node-floor. */
export function runAccuracyClient(job: ClientJob): Promise<ClientDocument> {
  if ((TRANSPORTS as readonly string[]).includes(job.client)) return runTeapot(job, job.client as Transport);
  if (job.client === 'node-floor') return measurePlainClient(() => runNodeFloor(job));
  return Promise.reject(new Error(`accuracy client: no such client here: ${job.client}`));
}

if (require.main === module) {
  runAccuracyClient(JSON.parse(process.argv[2] ?? '') as ClientJob).then(
    (document) => process.stdout.write(JSON.stringify(document)),
    (error: unknown) => {
      process.stderr.write(
        `accuracy client: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exitCode = 1;
    },
  );
}
