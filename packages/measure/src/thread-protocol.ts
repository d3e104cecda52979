import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { TokenizerFileError } from '@teapot/tokenizer';
import { ClientConfigError } from './client-config-error';
import type { Progress, RunOptions, RunResult } from './types';

/**
 * The messages between a run's measuring thread (measuring-thread.ts) and the thread that started it
 * (in-thread.ts).
 * Only data crosses: the functions of RunOptions (target.lookup, onProgress) and its signal stay with
 * the caller, and the thread reaches them through these messages.
 */
export interface ThreadInput {
  options: Omit<RunOptions, 'signal' | 'onProgress' | 'target'> & {
    target: Omit<RunOptions['target'], 'lookup'>;
  };
  hasLookup: boolean;
  hasProgress: boolean;
}

export type ToThread =
  | { kind: 'abort' }
  | {
      kind: 'lookup-result';
      id: number;
      error: SentError | null;
      address: string | LookupAddress[];
      family: number | undefined;
    };

export type FromThread =
  | { kind: 'progress'; progress: Progress }
  | { kind: 'lookup'; id: number; hostname: string; options: object }
  | { kind: 'result'; result: RunResult }
  | { kind: 'failed'; error: SentError };

/**
 * An error as data: structured cloning keeps only an Error's message, and a request's class depends
 * on its `code` (request-errors.ts) and a lookup's refusal on being a ClientConfigError.
 */
export interface SentError {
  name: string;
  message: string;
  stack?: string;
  code?: string;
  errno?: number;
  syscall?: string;
  hostname?: string;
}

export function sendError(error: unknown): SentError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const { code, errno, syscall, hostname } = error as NodeJS.ErrnoException & { hostname?: unknown };
  return {
    name: error.name,
    message: error.message,
    stack: error.stack,
    ...(typeof code === 'string' ? { code } : {}),
    ...(typeof errno === 'number' ? { errno } : {}),
    ...(typeof syscall === 'string' ? { syscall } : {}),
    ...(typeof hostname === 'string' ? { hostname } : {}),
  };
}

const ERROR_CLASSES: Record<string, new (message: string) => Error> = {
  TypeError,
  RangeError,
  ClientConfigError,
  TokenizerFileError,
};

export function receiveError(sent: SentError): Error {
  const Class = ERROR_CLASSES[sent.name] ?? Error;
  const error: NodeJS.ErrnoException & { hostname?: string } = new Class(sent.message);
  if (!(sent.name in ERROR_CLASSES) && sent.name !== 'Error') error.name = sent.name;
  if (sent.stack !== undefined) error.stack = sent.stack;
  // a ClientConfigError's code is its own
  if (sent.code !== undefined && Class !== ClientConfigError) error.code = sent.code;
  if (sent.errno !== undefined) error.errno = sent.errno;
  if (sent.syscall !== undefined) error.syscall = sent.syscall;
  if (sent.hostname !== undefined) error.hostname = sent.hostname;
  return error;
}

/** The typed arrays of a result's records, moved to the receiving thread instead of copied. */
export function timingBuffers(result: RunResult): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  for (const record of result.requests) {
    for (const array of [record.chunkOffsetsUs, record.chunkTokens, record.chunkKinds]) {
      if (array.buffer instanceof ArrayBuffer) buffers.add(array.buffer);
    }
  }
  return [...buffers];
}

/** A lookup answered by the caller's thread: the URL policy stays where it was configured. */
export function lookupThroughCaller(send: (message: FromThread) => void): {
  lookup: LookupFunction;
  answer(message: Extract<ToThread, { kind: 'lookup-result' }>): void;
} {
  let next = 0;
  const waiting = new Map<number, Parameters<LookupFunction>[2]>();
  const lookup = ((hostname: string, options: unknown, callback: Parameters<LookupFunction>[2]) => {
    const id = next++;
    waiting.set(id, callback);
    const sentOptions = typeof options === 'object' && options !== null ? options : { family: options };
    send({ kind: 'lookup', id, hostname, options: sentOptions });
  }) as LookupFunction;
  return {
    lookup,
    answer(message) {
      const callback = waiting.get(message.id);
      if (!callback) return;
      waiting.delete(message.id);
      const error = message.error === null ? null : receiveError(message.error);
      (callback as (e: Error | null, a: string | LookupAddress[], f?: number) => void)(
        error,
        message.address,
        message.family,
      );
    },
  };
}
