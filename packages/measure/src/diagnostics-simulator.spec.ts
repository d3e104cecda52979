import { startSimulator, type RunningSimulator, type SimulatorOptions } from '@teapot/simulator';
import { clientDiagnostics } from './diagnostics';
import { runBenchmark } from './run';
import type { Workload } from './types';

jest.setTimeout(60_000);

/** The client diagnostics of `requests` requests of `workload`, four at a time, against a simulator. */
async function measured(simulator: SimulatorOptions, workload: Workload, requests: number) {
  const sim: RunningSimulator = await startSimulator({ seed: 3, ...simulator });
  try {
    const target = { baseUrl: sim.baseUrl, apiKind: 'chat', model: sim.deployment.model.name } as const;
    const load = { kind: 'closed', concurrency: 4 } as const;
    const result = await runBenchmark({ target, workload, load, requests, forceOutputLength: true, seed: 1 });
    return { result, diagnostics: clientDiagnostics(result.requests, result.summary) };
  } finally {
    await sim.close();
  }
}

describe('client diagnostics against the simulator ground truth', () => {
  it('reads 3 tokens per chunk, and an acceptance estimate of 3, from a server bundling 3 tokens', async () => {
    const { diagnostics } = await measured(
      { tokensPerChunk: 3 },
      { kind: 'synthetic', inputTokens: 32, outputTokens: 30 },
      8,
    );
    expect(diagnostics?.tokensPerChunkMean).toBe(3);
    expect(diagnostics?.tokensPerChunkP99).toBe(3);
    expect(diagnostics?.multiTokenChunkShare).toBe(1);
    expect(diagnostics?.acceptedLengthEstimate).toBe(3);
  });

  it('finds ITL during prefills above ITL outside them when whole prefills stall the decodes', async () => {
    // Short prompts decoding long outputs, and every fourth request a long prompt whose prefill
    // (one whole step without chunked prefill) stalls every running stream.
    const long = 'tea '.repeat(6000);
    const prompts = [
      { prompt: 'short', outputTokens: 120 },
      { prompt: 'brief', outputTokens: 120 },
      { prompt: 'terse', outputTokens: 120 },
      { prompt: long, outputTokens: 4 },
    ];
    const { diagnostics } = await measured({ chunkedPrefill: false }, { kind: 'dataset', prompts }, 24);
    const during = diagnostics?.itlP99DuringPrefillMs;
    const outside = diagnostics?.itlP99OutsidePrefillMs;
    expect(during).toBeDefined();
    expect(outside).toBeDefined();
    expect(during!).toBeGreaterThan(outside! * 2);
  });
});
