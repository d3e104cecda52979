import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A bad command line: the message names the flag and what it expects, and never echoes secrets. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export type FlagOptions = NonNullable<ParseArgsConfig['options']>;

export type FlagValues<O extends FlagOptions> = ReturnType<
  typeof parseArgs<{ options: O; strict: true; allowPositionals: false }>
>['values'];

/**
 * Reads `argv` as --flags only: every setting is a flag, so a stray word is a mistake, not an input.
 * What node:util refuses becomes a UsageError of one short line naming the flag.
 */
export function readFlags<const O extends FlagOptions>(argv: string[], options: O): FlagValues<O> {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError(describeParseError(error));
  }
}

/** node:util's messages are long and suggest `--` for positionals, which no teapot command takes. */
function describeParseError(error: unknown): string {
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  const quoted = /'(-{1,2}[^' ]*|[^']*)/.exec(message)?.[1] ?? '';
  const flag = /--?[\w-]+/.exec(quoted)?.[0] ?? quoted;
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown flag ${flag}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return message.includes('does not take an argument')
        ? `${flag} is a switch and takes no value`
        : `${flag} needs a value (write ${flag}=VALUE for a value that starts with -)`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument "${quoted}": every setting is a --flag`;
    default:
      return message;
  }
}
