import { UsageError, oneOf, positiveNumber, wholeNumber } from '@teapot/command-line';
import type { DatasetFilters, DatasetFormat, SessionOptions, Workload } from '@teapot/measure';

/** What the workload flags ask for: a workload, or a file to read into one (target.ts). */
export type WorkloadChoice =
  | Extract<Workload, { kind: 'synthetic' | 'multi-turn' | 'shared-prefix' }>
  | { kind: 'dataset'; path: string; outputTokens?: number }
  | ({
      kind: 'conversations';
      path: string;
      format: DatasetFormat;
      outputTokens?: number;
      filters: DatasetFilters;
    } & SessionOptions)
  | { kind: 'trace'; path: string; speed: number };

const VALUE_FLAGS = [
  'input-tokens',
  'output-tokens',
  'dataset',
  'dataset-format',
  'min-input-tokens',
  'max-input-tokens',
  'max-output-tokens',
  'max-turns',
  'sample',
  'multi-turn',
  'system-tokens',
  'think-time',
  'think-time-distribution',
  'shared-prefix',
  'trace',
  'trace-speed',
] as const;

/** The flags that shape a bench's workload (all take a value but --actual-answers). */
export const WORKLOAD_FLAGS = {
  ...(Object.fromEntries(VALUE_FLAGS.map((name) => [name, { type: 'string' }])) as Record<
    (typeof VALUE_FLAGS)[number],
    { type: 'string' }
  >),
  'actual-answers': { type: 'boolean' },
} as const;

type Values = {
  [K in keyof typeof WORKLOAD_FLAGS]?: (typeof WORKLOAD_FLAGS)[K]['type'] extends 'boolean'
    ? boolean
    : string;
};

const DATASET_FILTER_FLAGS = [
  'min-input-tokens',
  'max-input-tokens',
  'max-output-tokens',
  'max-turns',
  'sample',
] as const;
const SESSION_FLAGS = ['think-time', 'think-time-distribution', 'actual-answers'] as const;

/** The flags given among `flags`, as --names. */
function given(values: Values, flags: readonly (keyof Values)[]): string[] {
  return flags.filter((flag) => values[flag] !== undefined).map((flag) => `--${flag}`);
}

function refuse(values: Values, flags: readonly (keyof Values)[], why: string): void {
  const present = given(values, flags);
  if (present.length > 0) throw new UsageError(`${present.join(', ')} ${why}`);
}

function sessionOptions(values: Values): SessionOptions {
  const meanMs = positiveNumber('--think-time', values['think-time']);
  const distribution =
    oneOf('--think-time-distribution', values['think-time-distribution'], [
      'constant',
      'exponential',
    ] as const) ?? 'exponential';
  if (meanMs === undefined && values['think-time-distribution'] !== undefined)
    throw new UsageError('--think-time-distribution shapes the pauses of --think-time MS; give --think-time');
  return {
    ...(meanMs === undefined ? {} : { thinkTime: { distribution, meanMs } }),
    ...(values['actual-answers'] ? { actualAnswers: true } : {}),
  };
}

/** `--shared-prefix P,L,M`: P prefixes of L tokens, each used by M requests. */
function sharedPrefix(text: string): { prefixes: number; prefixTokens: number; requestsPerPrefix: number } {
  const parts = text.split(',');
  if (parts.length !== 3)
    throw new UsageError(
      `--shared-prefix: expected P,L,M (prefixes, prefix tokens, requests per prefix), got "${text}"`,
    );
  const [prefixes, prefixTokens, requestsPerPrefix] = parts.map((part, i) =>
    wholeNumber(`--shared-prefix (${['P', 'L', 'M'][i]})`, part.trim(), 1),
  );
  return { prefixes, prefixTokens, requestsPerPrefix };
}

/** `--trace FILE [--trace-speed X]`: every request's time and lengths come from the file. */
function traceChoice(values: Values): WorkloadChoice {
  refuse(
    values,
    ['input-tokens', 'output-tokens', 'system-tokens', ...DATASET_FILTER_FLAGS, ...SESSION_FLAGS],
    "cannot be combined with --trace: each request's lengths come from its line",
  );
  if (values.trace === '') throw new UsageError('--trace: expected a file path');
  return {
    kind: 'trace',
    path: values.trace!,
    speed: positiveNumber('--trace-speed', values['trace-speed']) ?? 1,
  };
}

/** The workload the flags describe; UsageError for flags that do not go together. */
export function parseWorkload(
  values: Values,
  defaults: { inputTokens: number; outputTokens: number },
): WorkloadChoice {
  const outputTokens = wholeNumber('--output-tokens', values['output-tokens'], 1);
  const inputTokens = wholeNumber('--input-tokens', values['input-tokens'], 1);
  const kinds = given(values, ['dataset', 'multi-turn', 'shared-prefix', 'trace']);
  if (kinds.length > 1) throw new UsageError(`${kinds.join(' and ')} are alternatives: pick one workload`);
  if (values.trace !== undefined) return traceChoice(values);
  refuse(values, ['trace-speed'], 'sets the replay speed of a --trace FILE');
  if (values.dataset !== undefined) {
    if (inputTokens !== undefined)
      throw new UsageError(
        '--input-tokens cannot be combined with --dataset: the prompts come from the file',
      );
    refuse(values, ['system-tokens'], 'shape --multi-turn sessions, not a --dataset');
    const path = values.dataset === '' ? '' : values.dataset;
    if (path === '') throw new UsageError('--dataset: expected a file path');
    const format =
      oneOf('--dataset-format', values['dataset-format'], ['prompts', 'sharegpt', 'openai'] as const) ??
      'prompts';
    if (format === 'prompts') {
      refuse(
        values,
        [...DATASET_FILTER_FLAGS, ...SESSION_FLAGS],
        'need a conversation dataset: --dataset-format sharegpt|openai',
      );
      return { kind: 'dataset', path, outputTokens };
    }
    const filters: DatasetFilters = {};
    for (const flag of DATASET_FILTER_FLAGS) {
      const value = wholeNumber(`--${flag}`, values[flag], 1);
      if (value === undefined) continue;
      const key = flag.replace(/-(\w)/g, (_, c: string) => c.toUpperCase()) as keyof DatasetFilters;
      filters[key] = value;
    }
    return { kind: 'conversations', path, format, outputTokens, filters, ...sessionOptions(values) };
  }
  refuse(values, ['dataset-format', ...DATASET_FILTER_FLAGS], 'filter a conversation --dataset');
  const lengths = {
    inputTokens: inputTokens ?? defaults.inputTokens,
    outputTokens: outputTokens ?? defaults.outputTokens,
  };
  if (values['multi-turn'] !== undefined) {
    const turns = wholeNumber('--multi-turn', values['multi-turn'], 1);
    const systemTokens = wholeNumber('--system-tokens', values['system-tokens'], 1);
    return {
      kind: 'multi-turn',
      turns,
      ...lengths,
      ...(systemTokens === undefined ? {} : { systemTokens }),
      ...sessionOptions(values),
    };
  }
  refuse(
    values,
    ['system-tokens', ...SESSION_FLAGS],
    'shape sessions: give --multi-turn N or a conversation --dataset',
  );
  if (values['shared-prefix'] !== undefined) {
    return {
      kind: 'shared-prefix',
      ...sharedPrefix(values['shared-prefix']),
      suffixTokens: lengths.inputTokens,
      outputTokens: lengths.outputTokens,
    };
  }
  return { kind: 'synthetic', ...lengths };
}
