import { post, readStream } from '../test/sse-client';
import { startSimulator, type RunningSimulator } from './server';

const chat = {
  model: 'llama-8b',
  messages: [{ role: 'user', content: 'short and stout' }],
  stream: true,
  max_tokens: 21,
  ignore_eos: true,
};

/** Mean scheduled gap between content events of one request, ms: the model's time, not the machine's. */
async function msPerToken(sim: RunningSimulator): Promise<number> {
  const result = await readStream(await post(`${sim.baseUrl}/chat/completions`, chat));
  const truth = sim.groundTruth(result.headers.get('x-teapot-response-id')!)!;
  const content = truth.events.filter((event) => event.kind === 'content');
  return (
    Number(content[content.length - 1].scheduledNs - content[0].scheduledNs) / (content.length - 1) / 1e6
  );
}

describe('redeploying a running simulator', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ quant: 'fp8', jitter: 0, maxLagMs: 10_000 });
  });
  afterAll(() => sim.close());

  it('FP8 -> FP16 over POST /v1/_teapot/deployment makes every token slower by the model, and back', async () => {
    const fp8 = await msPerToken(sim);
    expect(fp8).toBeCloseTo(3.3, 0);
    const response = await post(`${sim.baseUrl}/_teapot/deployment`, { quant: 'fp16' });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ quant: 'fp16', model: 'llama-8b', chunkedPrefill: false });
    const fp16 = await msPerToken(sim);
    expect(fp16).toBeCloseTo(6.29, 0);
    expect(sim.deployment.quant).toBe('fp16');
    const current = (await (await fetch(`${sim.baseUrl}/_teapot/deployment`)).json()) as { quant: string };
    expect(current.quant).toBe('fp16');
    sim.reconfigure({ quant: 'fp8' });
    expect(await msPerToken(sim)).toBeCloseTo(fp8, 1);
  });

  it('switches chunked prefill and keeps what it was not told to change', async () => {
    const view = await (await post(`${sim.baseUrl}/_teapot/deployment`, { chunkedPrefill: true })).json();
    expect(view).toMatchObject({ quant: 'fp8', chunkedPrefill: true, gpu: 'h100-sxm' });
    sim.reconfigure({ chunkedPrefill: false });
  });

  it('changes maxBatch (max_num_seqs) and resizes the KV cache with the weights', async () => {
    const before = (await (await fetch(`${sim.baseUrl}/_teapot/deployment`)).json()) as {
      kvCacheTokens: number;
    };
    const view = (await (
      await post(`${sim.baseUrl}/_teapot/deployment`, { maxBatch: 8, quant: 'fp16' })
    ).json()) as {
      maxBatch: number;
      kvCacheTokens: number;
    };
    expect(view.maxBatch).toBe(8);
    // FP16 weights take 8 GB more of each GPU: the cache shrinks by that over 128 KiB per token
    expect(before.kvCacheTokens - view.kvCacheTokens).toBeCloseTo(8.03e9 / 131_072, -2);
    const streams = await Promise.all(
      Array.from({ length: 12 }, () => post(`${sim.baseUrl}/chat/completions`, { ...chat, max_tokens: 40 })),
    );
    const reads = streams.map((r) => readStream(r));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(sim.stats().engine.running).toBeLessThanOrEqual(8);
    await Promise.all(reads);
    sim.reconfigure({ maxBatch: 256, quant: 'fp8' });
  });

  it('refuses what it cannot serve with a 400 naming the field, and keeps serving as before', async () => {
    for (const [body, param] of [
      [{ model: 'llama-70b' }, 'model'],
      [{ quant: 'fp3' }, 'quant'],
      [{ tp: 0 }, 'tp'],
      [{ chunkedPrefill: 'yes' }, 'chunkedPrefill'],
      [{ maxBatch: 0 }, 'maxBatch'],
      [{ chunkSize: 0 }, 'chunkSize'],
      [{ kvCacheTokens: 8 }, 'kvCacheTokens'],
      [{ prefixCaching: 'on' }, 'prefixCaching'],
      [{ speculativeTokens: 17 }, 'speculativeTokens'],
      [{ draftAcceptance: 1.5 }, 'draftAcceptance'],
      [{ draftModel: 'gpt-2' }, 'draftModel'],
    ] as const) {
      const response = await post(`${sim.baseUrl}/_teapot/deployment`, body);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { param: string } }).error.param).toBe(param);
    }
    expect((await post(`${sim.baseUrl}/_teapot/deployment`, [1])).status).toBe(400);
    const unservable = await post(`${sim.baseUrl}/_teapot/deployment`, { tp: 65 });
    expect(unservable.status).toBe(400);
    expect(((await unservable.json()) as { error: { message: string } }).error.message).toMatch(
      /tensor parallelism/,
    );
    expect(sim.deployment.tp).toBe(1);
    expect(() => sim.reconfigure({ gpu: 'l4', quant: 'fp16', tp: 1 })).not.toThrow();
    sim.reconfigure({ gpu: 'h100-sxm', quant: 'fp8' });
    expect(sim.deployment.quant).toBe('fp8');
  });
});
