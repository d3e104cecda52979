import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { startSimulatorProcess, stopProcess, type SimulatorProcess } from '../accuracy/simulator-process';

jest.setTimeout(60_000);

const DIST = join(__dirname, '..', '..', 'dist');
const SIMULATOR_MAIN = join(__dirname, '..', '..', '..', 'simulator', 'dist', 'main.js');
const CHILD = join(__dirname, '..', 'test-support', 'window-trace.js');
/** Two waves of 64 streams of 50 tokens, 20 ms apart: a 2 s window, past the 1.07 s a clock reading stays a small integer without the clock lead. */
const STREAMS = 64;
const REQUESTS = 128;

interface Deopt {
  /** The function V8 threw the optimized code of. */
  fn: string;
  reason: string;
  /** Where, innermost first: each inlined function's file:line:column. */
  at: string[];
}

/** The deoptimizations V8 traced between the run's window marks, and how many it traced in all. */
function deoptsInWindow(output: string): { inWindow: Deopt[]; total: number; window: boolean } {
  const lines = output.split('\n');
  // a mark may end a line V8 left unfinished (--trace-deopt-verbose prints some values apart)
  const start = lines.findIndex((line) => line.endsWith('teapot-window start'));
  const end = lines.findIndex((line) => line.endsWith('teapot-window end'));
  const inWindow: Deopt[] = [];
  let total = 0;
  lines.forEach((line, i) => {
    const bailout =
      /^\[bailout \(kind: [^,]+, reason: ([^)]*)\): begin\. deoptimizing \S+ <JSFunction (\S*)/.exec(line);
    if (bailout === null) return;
    total++;
    if (i < start || i > end) return;
    const at = [...(lines[i + 1] ?? '').matchAll(/<([^>]+)>/g)].map((match) => match[1]);
    inWindow.push({ fn: bailout[2] === '(sfi' ? '(anonymous)' : bailout[2], reason: bailout[1], at });
  });
  return { inWindow, total, window: start >= 0 && end > start };
}

/**
 * The tricks of speed/ (README there) exist so that the read path runs the code V8 optimized in the
 * warm-up's rehearsals for the whole window: an array born in the wrong elements kind, a number field
 * born a small integer, a clock reading leaving the small-integer range or a map that differs from run to
 * run each showed as a deoptimization there ("not a Smi", "wrong map", "insufficient type feedback"), and
 * the code compiled again on the client's core while tokens waited. So a real run, in a fresh process
 * with --trace-deopt, must deoptimize nothing of this package inside its measured window: not the read
 * (Connection.onRead, flushPieces, readBody, onResponseData, ArrivalInbox.push, LagHistogram.record),
 * the parse (drainTurn, work, handleRead, SseParser.push, onMessageBytes, scanChunk and its members,
 * recordChunk) nor the request's life (send, issue, the pacer). Node's own code may (its socket write,
 * onwrite, does once): that is not ours to fix.
 */
describe('the measured window, under --trace-deopt', () => {
  let simulator: SimulatorProcess;
  beforeAll(async () => {
    simulator = await startSimulatorProcess(SIMULATOR_MAIN);
  });
  afterAll(() => stopProcess(simulator.child));

  it(`deoptimizes none of this package's functions at ${STREAMS} streams`, async () => {
    const output = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        [
          '--trace-deopt',
          '--trace-deopt-verbose',
          CHILD,
          DIST,
          simulator.baseUrl,
          String(STREAMS),
          String(REQUESTS),
        ],
        { maxBuffer: 1 << 28 },
        (error, stdout, stderr) =>
          error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
      ),
    );
    expect(output).toContain(`teapot-run {"total":${REQUESTS},"succeeded":${REQUESTS}`);
    const { inWindow, total, window } = deoptsInWindow(output);
    expect(window).toBe(true);
    // the trace works: the warm-up's rehearsals deoptimize plenty while V8 learns the types
    expect(total).toBeGreaterThan(5);
    const ours = inWindow.filter((deopt) => deopt.at.some((place) => place.startsWith(DIST)));
    expect(ours).toEqual([]);
  });
});
