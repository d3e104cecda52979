import { runBenchmarkInThread } from '../in-thread';
import { CHUNK_KIND, type Transport } from '../types';
import {
  ACCURACY_MODEL,
  INPUT_TOKENS,
  OUTPUT_TOKENS,
  type ClientDocument,
  type ClientJob,
  type StreamDocument,
} from './documents';

/** teapot as a product run uses it: on a measuring thread of its own, with its warm-up before the measured window. */
export async function runTeapot(job: ClientJob, transport: Transport): Promise<ClientDocument> {
  const result = await runBenchmarkInThread({
    transport,
    target: { baseUrl: job.baseUrl, apiKind: 'chat', model: ACCURACY_MODEL },
    workload: { kind: 'synthetic', inputTokens: INPUT_TOKENS, outputTokens: OUTPUT_TOKENS },
    load: { kind: 'closed', concurrency: job.streams },
    requests: job.requests,
    seed: 1,
    timeoutMs: 120_000,
    forceOutputLength: true,
  });
  const streams: StreamDocument[] = [];
  for (const record of result.requests) {
    if (record.outcome !== 'ok' || record.responseId === null) continue;
    const ns: number[] = [];
    const tokens: number[] = [];
    for (let i = 0; i < record.chunkOffsetsUs.length; i++) {
      if (record.chunkKinds[i] === CHUNK_KIND.empty || record.chunkTokens[i] === 0) continue;
      ns.push((record.startUs + record.chunkOffsetsUs[i]) * 1000);
      tokens.push(record.chunkTokens[i]);
    }
    streams.push({ id: record.responseId, ns, tokens });
  }
  const { client } = result;
  return {
    originNs: result.monotonicAnchorNs,
    streams,
    failed: result.summary.requests.failed,
    cpuUs: client.cpuUs ?? null,
    loop: { p99: client.eventLoopDelayMs.p99, max: client.eventLoopDelayMs.max },
    saturation: { estimateP99Ms: client.timingErrorP99Ms ?? NaN, flagged: client.saturated },
  };
}
