import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { waitFor } from '@teapot/testing';
import { StackError, StackSession, type RestartPolicy } from './session';

// A child that only says it is up and stays up: what matters here is how the session treats its death.
const CHILD_SCRIPT = "console.log('up');\nsetInterval(() => undefined, 1_000);\n";
const POLICY: RestartPolicy = { firstDelayMs: 50, maxDelayMs: 200, maxRestarts: 2, windowMs: 60_000 };

describe('StackSession restarts', () => {
  let dir: string;
  let script: string;
  let output: { text: string; write(text: string): void };
  let session: StackSession;
  let interrupt: AbortController;

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'teapot-session-'));
    script = path.join(dir, 'child.js');
    writeFileSync(script, CHILD_SCRIPT);
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  beforeEach(() => {
    output = {
      text: '',
      write(text: string) {
        this.text += text;
      },
    };
    interrupt = new AbortController();
    session = new StackSession(output, false, interrupt.signal, POLICY);
  });

  afterEach(async () => {
    // Ends the guards still waiting (as Ctrl-C would) and the children.
    interrupt.abort();
    await session.stop();
  });

  const startChild = async (name: string) => {
    const child = session.start({ name, script, env: { PATH: process.env.PATH ?? '' } });
    await child.waitForLine(/^up$/);
    return child;
  };
  const killLatest = () => process.kill(session.pids[session.pids.length - 1], 'SIGKILL');
  /** A guard whose work never ends: it settles only when a child gives up (or the deadline passes). */
  const serving = (timeoutMs: number) =>
    session.guard('serving', () => new Promise<never>(() => undefined), timeoutMs);

  it('fails the launch at once when a child dies before the stack is up', async () => {
    await startChild('worker-runs');
    const guarded = serving(60_000);
    killLatest();
    await expect(guarded).rejects.toThrow('The worker-runs stopped on SIGKILL while serving.');
    expect(session.pids).toHaveLength(1);
  });

  it('restarts a child killed while serving, with backoff, and logs it', async () => {
    await startChild('worker-runs');
    session.superviseFromNow();
    let settled = false;
    void serving(60_000)
      .catch(() => undefined)
      .finally(() => (settled = true));

    killLatest();
    await waitFor('the first restart', () => session.pids.length === 2);
    expect(output.text).toContain(
      'the worker-runs stopped on SIGKILL; restarting it in 0.05 s (restart 1 of at most 2 within 60 s)',
    );
    killLatest();
    await waitFor('the second restart', () => session.pids.length === 3);
    expect(output.text).toContain('restarting it in 0.1 s (restart 2 of at most 2 within 60 s)');
    expect(settled).toBe(false);
    expect(new Set(session.pids).size).toBe(3);
  });

  it('gives up, naming the child, after the restarts the window allows', async () => {
    await startChild('worker-runs');
    session.superviseFromNow();
    const guarded = serving(60_000);
    for (let restarts = 1; restarts <= POLICY.maxRestarts; restarts++) {
      killLatest();
      await waitFor(`restart ${restarts}`, () => session.pids.length === restarts + 1);
    }
    killLatest();
    const error = await guarded.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StackError);
    expect((error as Error).message).toContain(
      'The worker-runs stopped on SIGKILL after 2 restart(s) within 60 s while serving.',
    );
  });

  it('does not restart a child once stopping began', async () => {
    session = new StackSession(output, false, interrupt.signal, { ...POLICY, firstDelayMs: 1_000 });
    await startChild('worker-runs');
    session.superviseFromNow();
    killLatest();
    await waitFor('the restart announced', () => output.text.includes('restarting it'));
    await session.stop();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(session.pids).toHaveLength(1);
  });
});
