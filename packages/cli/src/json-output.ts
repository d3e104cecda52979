import type { RunResult } from '@teapot/measure';
import type { BenchArgs } from './args';
import type { SloVerdict } from './slo';

export interface JsonContext {
  args: BenchArgs;
  baseUrl: string;
  model: string;
  simulator: string | null;
  slo: SloVerdict[];
}

/**
 * The `--json` document: the RunResult (per-request records only with `--raw`, typed arrays as
 * plain arrays) plus what was asked for. Header names are kept, their values never are.
 */
export function formatJsonResult(result: RunResult, context: JsonContext, raw: boolean): string {
  const { args } = context;
  const { requests, ...rest } = result;
  const document = {
    teapot: { command: 'bench', format: 1 },
    target: {
      baseUrl: context.baseUrl,
      apiKind: args.apiKind,
      model: context.model,
      headerNames: Object.keys(args.headers),
      simulator: context.simulator,
    },
    workload: args.workload,
    load: args.load,
    requestsAsked: args.requests ?? null,
    durationAskedS: args.durationS ?? null,
    warmupRequests: args.warmupRequests,
    seed: args.seed ?? null,
    forceOutputLength: args.forceOutputLength,
    slo: context.slo.map(({ gate, actual, pass }) => ({ ...gate, actual, pass })),
    ...rest,
    ...(raw ? { requests } : {}),
  };
  // Raw records are large: one token array per line of indentation would multiply the file.
  return JSON.stringify(document, typedArraysAsLists, raw ? undefined : 2) + '\n';
}

function typedArraysAsLists(_key: string, value: unknown): unknown {
  return ArrayBuffer.isView(value) && !(value instanceof DataView) ? Array.from(value as Uint32Array) : value;
}
