import { readCommandLine } from './command-line';
import { UsageError } from './flags';

function capture() {
  const out = { stdout: '', stderr: '' };
  const io = {
    stdout: { write: (text: string) => (out.stdout += text) },
    stderr: { write: (text: string) => (out.stderr += text) },
  };
  return { out, io };
}

const command = {
  name: 'teapot-x',
  help: 'Usage: teapot-x [--n N]',
  parse(argv: string[]): { n: number } | 'help' {
    if (argv[0] === '--help') return 'help';
    if (argv[0] === '--bad') throw new UsageError('unknown flag --bad');
    if (argv[0] === '--crash') throw new Error('not a usage mistake');
    return { n: argv.length };
  },
};

describe('readCommandLine', () => {
  it('hands the options on and writes nothing', () => {
    const { out, io } = capture();
    expect(readCommandLine(['a', 'b'], command, io)).toEqual({ options: { n: 2 } });
    expect(out).toEqual({ stdout: '', stderr: '' });
  });

  it('prints the help to stdout and exits 0', () => {
    const { out, io } = capture();
    expect(readCommandLine(['--help'], command, io)).toEqual({ exitCode: 0 });
    expect(out).toEqual({ stdout: 'Usage: teapot-x [--n N]\n', stderr: '' });
  });

  it('names the command and the mistake on stderr and exits 2', () => {
    const { out, io } = capture();
    expect(readCommandLine(['--bad'], command, io)).toEqual({ exitCode: 2 });
    expect(out).toEqual({
      stdout: '',
      stderr: 'teapot-x: unknown flag --bad\nRun with --help for the options.\n',
    });
  });

  it('lets any other error through', () => {
    expect(() => readCommandLine(['--crash'], command, capture().io)).toThrow('not a usage mistake');
  });
});
