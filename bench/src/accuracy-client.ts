/**
 * One client of the accuracy bench, run in a fresh process per level and repetition (see accuracy.ts),
 * so that no client profits from JIT work or connections left over from an earlier level: the one-off
 * script baseline here, teapot and node-floor through @teapot/measure/accuracy (the accuracy gate
 * runs those two the same way).
 *
 *   node dist/accuracy-client.js '{"client":"http1","baseUrl":"http://127.0.0.1:8000/v1","streams":64,"requests":128}'
 *
 * Prints one ClientDocument (JSON) on stdout.
 */
import {
  measurePlainClient,
  PLAIN_BODY,
  runAccuracyClient,
  type ClientJob,
  type PlainRun,
  type StreamDocument,
} from '@teapot/measure/accuracy';

async function main(): Promise<void> {
  const job = JSON.parse(process.argv[2] ?? '') as ClientJob;
  const document =
    job.client === 'baseline'
      ? await measurePlainClient(() => runBaseline(job))
      : await runAccuracyClient(job);
  process.stdout.write(JSON.stringify(document));
}

/** The one-off-script client: fetch, decode, split lines, parse, and only then read the clock. */
async function runBaseline(job: ClientJob): Promise<PlainRun> {
  const originNs = process.hrtime.bigint();
  const streams: StreamDocument[] = [];
  let issued = 0;
  let failed = 0;
  const worker = async () => {
    while (issued < job.requests) {
      issued++;
      try {
        streams.push(await baselineStream(`${job.baseUrl}/chat/completions`, originNs));
      } catch {
        failed++;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(job.streams, job.requests) }, worker));
  return { originNs: originNs.toString(), streams, failed };
}

async function baselineStream(url: string, originNs: bigint): Promise<StreamDocument> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: PLAIN_BODY,
  });
  if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const stream: StreamDocument = { id: '', ns: [], tokens: null };
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
      const chunk = JSON.parse(line.slice(6));
      const now = process.hrtime.bigint();
      stream.id ||= chunk.id;
      if (chunk.choices?.[0]?.delta?.content) stream.ns.push(Number(now - originNs));
    }
  }
  return stream;
}

main().catch((error: unknown) => {
  process.stderr.write(
    `accuracy-client: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
