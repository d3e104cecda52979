import { threadId } from 'node:worker_threads';
import { groundTruthFromJson, type GroundTruthJson } from '@teapot/simulator';
import { startBuiltInSimulator, SimulatorDeploymentError, type BuiltInSimulator } from './built-in-simulator';

jest.setTimeout(60_000);

/** Blocks this thread's event loop, as a client parsing a burst of chunks would. */
function busyFor(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

describe('the built-in simulator in a worker thread', () => {
  let simulator: BuiltInSimulator;

  beforeAll(async () => {
    simulator = await startBuiltInSimulator({ gpu: 'h100-sxm', model: 'llama-8b', jitter: 0 });
  });
  afterAll(() => simulator.close());

  it('serves from another thread and describes its deployment', async () => {
    expect(simulator.threadId).not.toBe(threadId);
    expect(simulator.deployment).toBe('llama-8b fp16 (KV bf16) on h100-sxm');
    expect(simulator.singleStreamMsPerToken).toBeCloseTo(6.29, 1);
    expect(simulator.baseUrl).toBe(`http://127.0.0.1:${simulator.port}/v1`);
    const models = (await (await fetch(`${simulator.baseUrl}/models`)).json()) as {
      data: Array<{ id: string }>;
    };
    expect(models.data[0]?.id).toBe('llama-8b');
  });

  it('keeps writing tokens on time while the client thread is blocked', async () => {
    const response = await fetch(`${simulator.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'llama-8b',
        messages: [{ role: 'user', content: 'hello' }],
        max_tokens: 120,
        ignore_eos: true,
        stream: true,
      }),
    });
    const id = response.headers.get('x-teapot-response-id') ?? '';
    const reader = response.body!.getReader();
    await reader.read();
    // About 60 decode steps of 6.3 ms: an in-process decode loop could write none of them.
    const blockedFromNs = process.hrtime.bigint();
    busyFor(400);
    const blockedToNs = process.hrtime.bigint();
    while (!(await reader.read()).done);

    const json = (await (
      await fetch(`${simulator.baseUrl}/_teapot/ground-truth/${id}`)
    ).json()) as GroundTruthJson;
    const content = groundTruthFromJson(json).events.filter((e) => e.kind === 'content');
    expect(content).toHaveLength(120);
    const writtenWhileBlocked = content.filter(
      (e) => e.writtenNs > blockedFromNs && e.writtenNs < blockedToNs,
    ).length;
    expect(writtenWhileBlocked).toBeGreaterThanOrEqual(10);
  });
});

describe('starting the built-in simulator', () => {
  it('rejects a deployment that does not fit with the simulator’s message', async () => {
    const start = startBuiltInSimulator({ gpu: 'l4', model: 'llama-70b' });
    await expect(start).rejects.toThrow(SimulatorDeploymentError);
    await expect(start).rejects.toThrow(/^llama-70b at fp16 needs .* GB of weights per GPU/);
  });
});
