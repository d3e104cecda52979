import type { GroundTruth } from '../src/ground-truth';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../src/server';
import { post, readStream, type StreamResult } from './sse-client';

/** A prompt of n distinct words (n prompt tokens): `${tag}${from}`, `${tag}${from + 1}`, ... */
export const words = (n: number, tag = 'w', from = 0): string =>
  Array.from({ length: n }, (_, i) => `${tag}${from + i}`).join(' ');

/** A simulator with no jitter and no schedule rebases (assertions on model time), closed after `body`. */
export async function withSimulator<T>(
  options: SimulatorOptions,
  body: (sim: RunningSimulator) => Promise<T>,
): Promise<T> {
  const sim = await startSimulator({ jitter: 0, maxLagMs: 60_000, ...options });
  try {
    return await body(sim);
  } finally {
    await sim.close();
  }
}

/** Starts a streamed completion of `promptWords` words and exactly `maxTokens` tokens. */
export async function streamCompletion(
  sim: RunningSimulator,
  promptWords: number,
  maxTokens: number,
): Promise<{ id: string; result: Promise<StreamResult> }> {
  const res = await post(`${sim.baseUrl}/completions`, {
    prompt: words(promptWords),
    stream: true,
    max_tokens: maxTokens,
    ignore_eos: true,
  });
  return { id: res.headers.get('x-teapot-response-id')!, result: readStream(res) };
}

/** A streamed chat of exactly `maxTokens` tokens: its ground truth and the text of each content chunk received. */
export async function streamChat(
  sim: RunningSimulator,
  messages: Array<{ role: string; content: string }>,
  maxTokens: number,
): Promise<{ truth: GroundTruth; chunks: string[] }> {
  const response = await post(`${sim.baseUrl}/chat/completions`, {
    messages,
    stream: true,
    max_tokens: maxTokens,
    ignore_eos: true,
  });
  const { events } = await readStream(response);
  const chunks = events
    .filter((e) => e.data !== '[DONE]')
    .map((e) => (JSON.parse(e.data) as { choices: Array<{ delta: { content?: string } }> }).choices[0])
    .map((choice) => choice?.delta.content ?? '')
    .filter((text) => text.length > 0);
  return { truth: sim.groundTruth(response.headers.get('x-teapot-response-id')!)!, chunks };
}
