import { UsageError } from './flags';

export interface CommandLineIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** What a command's `main` goes on with: its options, or the exit code it stops with. */
export type CommandLine<T> = { options: T } | { exitCode: number };

/**
 * The start of a long-running command: `--help` prints the help (exit 0); a usage mistake prints
 * `<name>: <message>` and where the options are described (exit 2, the shell's "misused").
 */
export function readCommandLine<T>(
  argv: string[],
  command: { name: string; help: string; parse(argv: string[]): T | 'help' },
  io: CommandLineIo = process,
): CommandLine<T> {
  let options: T | 'help';
  try {
    options = command.parse(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`${command.name}: ${error.message}\nRun with --help for the options.\n`);
    return { exitCode: 2 };
  }
  if (options === 'help') {
    io.stdout.write(`${command.help}\n`);
    return { exitCode: 0 };
  }
  return { options };
}
