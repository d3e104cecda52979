/**
 * What the accuracy runs (bench/src/accuracy.ts, the accuracy gate in accuracy-gate.spec.ts) and their
 * client processes agree on: the workload every client streams and the document each one prints.
 */

export const ACCURACY_MODEL = 'llama-8b';
export const OUTPUT_TOKENS = 50;
export const INPUT_TOKENS = 32;

/** teapot through each transport, the two baseline clients, and the two floors. */
export type ClientName = 'undici' | 'http1' | 'baseline' | 'aiohttp' | 'node-floor' | 'c-floor';

/** One client process's job: stream `requests` requests over `streams` concurrent streams (closed loop). */
export interface ClientJob {
  client: ClientName;
  baseUrl: string;
  streams: number;
  requests: number;
}

/** Arrival times of the token-carrying chunks of one response. */
export interface StreamDocument {
  id: string;
  /** ns after the document's originNs, on the monotonic clock (CLOCK_MONOTONIC). */
  ns: number[];
  /** Tokens per chunk as the client counted them; null where it does not count. */
  tokens: number[] | null;
}

/** What a client process prints. */
export interface ClientDocument {
  /** process.hrtime.bigint() (or the same clock) that `ns` counts from, as a decimal string. */
  originNs: string;
  streams: StreamDocument[];
  failed: number;
  /** The client's CPU time (user + system) over its run; null where unknown. */
  cpuUs: number | null;
  /** Event-loop delay beyond the monitor period, ms; null where the client has no such monitor. */
  loop: { p99: number; max: number } | null;
  /** teapot's own judgement of the run: its estimated P99 timestamp error and the saturation flag; null for others. */
  saturation: { estimateP99Ms: number; flagged: boolean } | null;
}

/** The request every client but teapot sends. */
export const PLAIN_BODY = JSON.stringify({
  model: ACCURACY_MODEL,
  messages: [{ role: 'user', content: 'word '.repeat(INPUT_TOKENS) }],
  max_tokens: OUTPUT_TOKENS,
  ignore_eos: true,
  stream: true,
  stream_options: { include_usage: true },
});

/** Request bytes for the floor readers, which speak HTTP/1.1 themselves. */
export function plainRequest(baseUrl: string): Buffer {
  const url = new URL(`${baseUrl}/chat/completions`);
  return Buffer.from(
    `POST ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(PLAIN_BODY)}\r\n\r\n${PLAIN_BODY}`,
  );
}
