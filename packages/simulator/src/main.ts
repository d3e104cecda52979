#!/usr/bin/env node
import { UsageError, numberFrom, oneOf, readCommandLine, readFlags, wholeNumber } from '@teapot/command-line';
import { FAULT_MODES } from './faults';
import { DeploymentError } from './latency-model';
import {
  GPU_PRESETS,
  KV_CACHE_DTYPES,
  MODEL_PRESETS,
  WEIGHT_QUANTS,
  type KvCacheDtype,
  type ModelName,
  type WeightQuant,
} from '@teapot/hardware';
import { TokenizerFileError } from '@teapot/tokenizer';
import { FIXED_STEP_GPU } from './fixed-step-gpu';
import { startSimulator, type SimulatorOptions } from './server';

const HELP = `teapot-sim: a simulated OpenAI-compatible LLM endpoint with a first-principles latency model

Usage: node packages/simulator/dist/main.js [options]

  --port N               port to listen on (default 8000; 0 = any free port)
  --host HOST            address to bind (default 127.0.0.1)
  --gpu NAME             ${Object.keys(GPU_PRESETS).join(' | ')} (default h100-sxm)
  --model NAME           ${Object.keys(MODEL_PRESETS).join(' | ')} (default llama-8b)
  --quant Q              weights: ${WEIGHT_QUANTS.join(' | ')} (default fp16)
  --kv-quant Q           KV cache: ${KV_CACHE_DTYPES.join(' | ')} (default bf16)
  --tp N                 tensor parallelism (default 1)
  --step-ms MS           every step, prefill included, takes MS whatever the batch (an unlimited
                         GPU plus MS of step overhead; replaces --gpu and --tp)
  --max-batch N          running sequences per step (default 256)
  --chunked-prefill      mix prompt chunks into decode steps instead of stalling them
  --chunk-size N         tokens per step with --chunked-prefill, decodes counted first
                         (vLLM's max_num_batched_tokens; default 512)
  --prefix-caching       reuse cached full prompt blocks (vLLM's automatic prefix caching)
  --speculative-tokens K speculative decoding: K draft tokens per step (default 0: off)
  --draft-acceptance P   mean probability a draft token is accepted (default 0.7)
  --draft-model NAME     ${Object.keys(MODEL_PRESETS).join(' | ')} (default llama-1b)
  --kv-cache-tokens N    KV-cache slots in tokens, blocks of 16 (default: GPU memory x
                         --gpu-memory-utilization less the weights, over KV bytes per token)
  --gpu-memory-utilization F  share of GPU memory for weights and KV cache (default 0.9)
  --tokens-per-chunk N   tokens bundled per SSE chunk (default 1)
  --jitter SIGMA         lognormal step-time jitter (default 0.03)
  --seed N               seed of every random choice (default 1)
  --mean-output N        mean output tokens before the seeded EOS (default 256)
  --tokenizer PATH       a model's tokenizer.json: prompts counted and output streamed in its tokens
  --spin-us N            spin the last N us before each step instead of sleeping (default 1000; 0 = timers only)
  --fault MODE           ${FAULT_MODES.join(' | ')}
  --fault-rate P         probability a request gets --fault (default 1)
  --fault-after N        tokens before a mid-stream fault (default 2)
  --help                 this text

Per request: header x-teapot-fault: MODE (and x-teapot-fault-after: N).
Ground truth: GET /v1/_teapot/ground-truth/:id, POST /v1/_teapot/ground-truth {"ids": [...]},
GET /v1/_teapot/steps?since=NS. vLLM's Prometheus metrics: GET /metrics.
Redeploy while running: POST /v1/_teapot/deployment {"quant": "fp16", "speculativeTokens": 0}
(any of gpu, quant, kvCacheDtype, tp, chunkedPrefill, chunkSize, maxBatch, kvCacheTokens,
prefixCaching, speculativeTokens, draftAcceptance, draftModel; GET shows the current one).`;

export function parseCommandLine(argv: string[]): SimulatorOptions | 'help' {
  const values = readFlags(argv, {
    port: { type: 'string' },
    host: { type: 'string' },
    gpu: { type: 'string' },
    model: { type: 'string' },
    quant: { type: 'string' },
    'kv-quant': { type: 'string' },
    tp: { type: 'string' },
    'step-ms': { type: 'string' },
    'max-batch': { type: 'string' },
    'chunked-prefill': { type: 'boolean' },
    'chunk-size': { type: 'string' },
    'prefix-caching': { type: 'boolean' },
    'speculative-tokens': { type: 'string' },
    'draft-acceptance': { type: 'string' },
    'draft-model': { type: 'string' },
    'tokens-per-chunk': { type: 'string' },
    'kv-cache-tokens': { type: 'string' },
    'gpu-memory-utilization': { type: 'string' },
    jitter: { type: 'string' },
    seed: { type: 'string' },
    'mean-output': { type: 'string' },
    'spin-us': { type: 'string' },
    tokenizer: { type: 'string' },
    fault: { type: 'string' },
    'fault-rate': { type: 'string' },
    'fault-after': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) return 'help';
  const fault = oneOf('--fault', values.fault, FAULT_MODES);
  if (fault === undefined && (values['fault-rate'] !== undefined || values['fault-after'] !== undefined)) {
    throw new UsageError('--fault-rate and --fault-after need --fault');
  }
  const stepMs = numberFrom('--step-ms', values['step-ms'], 0.001, 60_000);
  if (stepMs !== undefined && (values.gpu !== undefined || values.tp !== undefined)) {
    throw new UsageError('--step-ms replaces the GPU model: leave out --gpu and --tp');
  }
  const port = wholeNumber('--port', values.port, 0, 65535) ?? 8000;
  return {
    port,
    host: values.host,
    gpu:
      stepMs === undefined
        ? oneOf('--gpu', values.gpu, Object.keys(GPU_PRESETS) as Array<keyof typeof GPU_PRESETS>)
        : FIXED_STEP_GPU,
    model: oneOf('--model', values.model, Object.keys(MODEL_PRESETS) as Array<keyof typeof MODEL_PRESETS>),
    quant: oneOf<WeightQuant>('--quant', values.quant, WEIGHT_QUANTS),
    kvCacheDtype: oneOf<KvCacheDtype>('--kv-quant', values['kv-quant'], KV_CACHE_DTYPES),
    tp: wholeNumber('--tp', values.tp, 1),
    latency: stepMs === undefined ? undefined : { stepOverheadS: stepMs / 1000 },
    maxBatch: wholeNumber('--max-batch', values['max-batch'], 1),
    chunkedPrefill: values['chunked-prefill'] ?? false,
    chunkSize: wholeNumber('--chunk-size', values['chunk-size'], 1),
    prefixCaching: values['prefix-caching'] ?? false,
    speculativeTokens: wholeNumber('--speculative-tokens', values['speculative-tokens'], 0),
    draftAcceptance: numberFrom('--draft-acceptance', values['draft-acceptance'], 0, 1),
    draftModel: oneOf<ModelName>(
      '--draft-model',
      values['draft-model'],
      Object.keys(MODEL_PRESETS) as ModelName[],
    ),
    tokensPerChunk: wholeNumber('--tokens-per-chunk', values['tokens-per-chunk'], 1),
    kvCacheTokens: wholeNumber('--kv-cache-tokens', values['kv-cache-tokens'], 16),
    gpuMemoryUtilization: numberFrom('--gpu-memory-utilization', values['gpu-memory-utilization'], 0.01, 1),
    jitter: numberFrom('--jitter', values.jitter, 0, 1),
    seed: wholeNumber('--seed', values.seed, 0),
    meanOutputTokens: numberFrom('--mean-output', values['mean-output'], 1, 1e9),
    spinUs: wholeNumber('--spin-us', values['spin-us'], 0),
    tokenizer: values.tokenizer,
    fault: fault && {
      mode: fault,
      rate: numberFrom('--fault-rate', values['fault-rate'], 0, 1),
      afterTokens: wholeNumber('--fault-after', values['fault-after'], 0),
    },
  };
}

async function main(): Promise<void> {
  const commandLine = readCommandLine(process.argv.slice(2), {
    name: 'teapot-sim',
    help: HELP,
    parse: parseCommandLine,
  });
  if ('exitCode' in commandLine) {
    process.exitCode = commandLine.exitCode;
    return;
  }
  let simulator;
  try {
    simulator = await startSimulator(commandLine.options);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (
      error instanceof DeploymentError ||
      error instanceof TokenizerFileError ||
      code === 'EADDRINUSE' ||
      code === 'EACCES' ||
      code === 'EADDRNOTAVAIL'
    ) {
      process.stderr.write(`teapot-sim: ${(error as Error).message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const stats = simulator.stats();
  process.stdout.write(
    `teapot-sim listening on ${simulator.baseUrl}: ${stats.deployment}, ` +
      `${stats.singleStreamMsPerToken.toFixed(2)} ms/token at batch 1\n`,
  );
  const stop = (): void => {
    void simulator.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`teapot-sim: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
