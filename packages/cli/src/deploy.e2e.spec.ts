import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  DEMO_MODEL,
  redeploySimulator,
  ROUNDS_PROFILE,
  servingConfigOf,
  startTestStack,
  type TestStack,
} from '@teapot/stack/testing';
import {
  createTestWorld,
  freePort,
  startWebhookReceiver,
  waitFor,
  type TestWorld,
  type WebhookReceiver,
} from '@teapot/testing';
import { runCli } from './cli';
import { GATE_EXIT } from './deploy/gate';
import { MAIN, teapot } from './test-support/binary';
import { captureIo } from './test-support/io';

jest.setTimeout(180_000);

// The gate end to end: the API, both workers and the simulators of `npm start` (one stack for every
// case), an endpoint on the FP8 simulator with a profile of about a second a run, and a Slack-format
// subscription whose deliveries a local receiver records.
describe('teapot deploy and teapot verdict against a running teapot', () => {
  let world: TestWorld;
  let stack: TestStack;
  let receiver: WebhookReceiver;
  let endpoint: { id: string; name: string };
  let dir: string;
  const env = () => ({ TEAPOT_URL: stack.apiUrl, TEAPOT_API_KEY: stack.apiKey });
  // three runs a side, judged at 25% (a test machine shared by many processes moves TTFT by ~15%)
  const verification = [
    ...['--runs-per-profile', '3', '--baseline-runs', '3', '--first-run-delay', '0'],
    ...['--threshold', '0.25', '--include-saturated', '--timeout', '120'],
  ];
  const withLogs = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (error instanceof Error) error.message += `\n\nstack:\n${stack?.log()}`;
      throw error;
    }
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'teapot-gate-'));
    world = await createTestWorld({ poolMax: 1 });
    receiver = await startWebhookReceiver();
    stack = await startTestStack(world);
    const created = await stack.api.createEndpoint({
      name: `gate-fp8-${process.pid}`,
      baseUrl: stack.simulatorUrls.fp8,
      apiKind: 'chat',
      model: DEMO_MODEL,
      config: servingConfigOf('fp8'),
    });
    endpoint = { id: created.id, name: created.name };
    await stack.api.createProfile({ ...ROUNDS_PROFILE, endpointId: endpoint.id });
    await stack.api.createSubscription({
      url: `${receiver.url}/services/T000/B000/gate`,
      eventTypes: ['deployment.regressed', 'deployment.verified'],
      endpointId: endpoint.id,
      format: 'slack',
    });
  });

  afterAll(async () => {
    await stack?.stop();
    await receiver?.close();
    await world?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('exits 2 for the first deployment, which has no baseline (its runs are the next one’s)', () =>
    withLogs(async () => {
      const io = captureIo(env());
      const code = await runCli(
        ['deploy', '--endpoint', endpoint.name, '--label', 'first', ...verification],
        io,
      );
      expect(io.err()).toMatch(/^teapot deploy: deployment \S+ announced on gate-fp8-\d+: 3 runs queued; /m);
      expect(io.out()).toContain(': NO_BASELINE');
      expect(code).toBe(GATE_EXIT.inconclusive);
    }));

  // Unchanged, the verdict is verified, or improved or inconclusive when other processes on this
  // machine slowed one side's runs: exit 0 whichever, since only a regression fails this gate.
  it('exits 0 for a neutral deployment when only a regression fails the gate', () =>
    withLogs(async () => {
      const io = captureIo(env());
      const code = await runCli(
        [
          'deploy',
          '--endpoint',
          endpoint.id,
          '--label',
          'unchanged',
          '--fail-on',
          'regressed',
          ...verification,
        ],
        io,
      );
      expect(io.out()).toMatch(/: (VERIFIED|IMPROVED|INCONCLUSIVE)\n/);
      expect(code).toBe(GATE_EXIT.passed);
    }));

  it('exits 1 when the FP8 endpoint is switched to FP16, with the Markdown summary written and a Slack message sent', () =>
    withLogs(async () => {
      await redeploySimulator(stack.simulatorUrls.fp8, { quant: 'fp16' });
      const markdown = join(dir, 'comment.md');
      const io = captureIo(env());
      const code = await runCli(
        [
          'deploy',
          ...['--endpoint', endpoint.name, '--label', 'moved to FP16 weights', '--version', 'sim-fp16'],
          ...['--config', 'weightQuant=fp16', '--markdown', markdown],
          ...verification,
        ],
        io,
      );
      expect(code).toBe(GATE_EXIT.regressed);
      const out = io.out();
      expect(out).toMatch(
        /^deployment \S+ "moved to FP16 weights" \(version sim-fp16\) on gate-fp8-\d+: REGRESSED$/m,
      );
      // half the weight bytes per decode step no more: the median time per output token rises by far more than 25%
      const tpot = out.split('\n').find((line) => line.startsWith('  tpot p50 (ms) ')) ?? '';
      const [, baseline, candidate] =
        /^\s+tpot p50 \(ms\)\s+([\d.]+)\s+([\d.]+)\s+\+[\d.]+%/.exec(tpot) ?? [];
      expect(Number(candidate)).toBeGreaterThan(Number(baseline) * 1.4);
      expect(tpot).toMatch(/ regressed \*$/);

      const comment = await readFile(markdown, 'utf8');
      expect(comment).toMatch(/^### 🔴 teapot: deployment \*\*regressed\*\*\n/);
      expect(comment).toContain(`**moved to FP16 weights** (\`sim-fp16\`) on **${endpoint.name}**`);
      expect(comment).toContain('| profile | row | baseline | candidate | change | interval | verdict |');
      expect(comment).toMatch(
        /\| deployment-rounds \| \*\*tpot p50 \(ms\)\*\* \| [\d.]+ \| [\d.]+ \| \*\*\+[\d.]+%\*\* \| \[\+[\d.]+%, \+[\d.]+%\] \| 🔴 regressed \|/,
      );
      expect(comment).toContain(`(${stack.apiUrl}/#/endpoints/${endpoint.id})`);
      expect(comment).toMatch(/\(http:\/\/127\.0\.0\.1:\d+\/#\/compare\?baseline\.runIds=[0-9a-f-]+%2C/);

      const slack = await waitFor('the Slack-format deployment.regressed', () =>
        receiver.received.find((r) => r.body.includes('Deployment regressed')),
      );
      const message = JSON.parse(slack.body) as { text: string; blocks: Array<{ type: string }> };
      expect(message.text).toBe(`🔴 Deployment regressed: moved to FP16 weights on ${endpoint.name}`);
      expect(message.blocks.map((b) => b.type)).toEqual([
        'header',
        'section',
        'section',
        'actions',
        'context',
      ]);
      expect(slack.body).toMatch(
        /• `tpot p50 \(ms\)` [\d.]+ -> [\d.]+ ms \*\+[\d.]+%\* \[\+[\d.]+%, \+[\d.]+%\] regressed/,
      );
      expect(slack.body).toContain(`/#/endpoints/${endpoint.id}`);
      expect(slack.body).toContain('/#/compare?baseline.runIds=');
    }));

  it('leaves the deployment to be verified on Ctrl-C, and teapot verdict reads it later', () =>
    withLogs(async () => {
      const interrupt = new AbortController();
      const io = captureIo(env(), interrupt.signal);
      const write = io.stderr.write;
      io.stderr.write = (text: string) => {
        if (text.includes(' announced on ')) interrupt.abort();
        return write(text);
      };
      const code = await runCli(
        ['deploy', '--endpoint', endpoint.id, '--label', 'still fp16', ...verification],
        io,
      );
      expect(code).toBe(GATE_EXIT.interrupted);
      const [, id] =
        /keeps being verified; read its verdict later with: teapot verdict (\S+)\n/.exec(io.err()) ?? [];
      expect(id).toBeDefined();

      const now = captureIo(env());
      expect(await runCli(['verdict', id, '--no-wait', '--fail-on', 'none'], now)).toBe(GATE_EXIT.passed);
      expect(now.out()).toContain(`deployment ${id} "still fp16" on ${endpoint.name}: PENDING`);

      const later = captureIo(env());
      expect(await runCli(['verdict', id, '--fail-on', 'regressed', '--timeout', '120'], later)).toBe(
        GATE_EXIT.passed,
      );
      expect(later.out()).toMatch(
        new RegExp(
          `^deployment ${id} "still fp16" on ${endpoint.name}: (VERIFIED|IMPROVED|INCONCLUSIVE)$`,
          'm',
        ),
      );
    }));

  it('runs the docs/ci.md gate step as written: records the exit code and writes the comment', () =>
    withLogs(async () => {
      const script = gateStepScript(await readFile(join(__dirname, '../../../docs/ci.md'), 'utf8'));
      expect(script).toMatch(/^set \+e\nnode "\$TEAPOT_CLI" deploy /);
      const output = join(dir, 'github-output');
      // The step keeps the default first-run delay (30 s, for the endpoint's caches to warm): the
      // simulator has none, so what the deployment queued delayed starts as soon as it is queued.
      const step = await stack.withoutDelays(() =>
        promisify(execFile)('bash', ['-c', script], {
          cwd: dir,
          env: {
            ...env(),
            PATH: process.env.PATH,
            TEAPOT_CLI: MAIN,
            TEAPOT_ENDPOINT: endpoint.name,
            DEPLOY_LABEL: 'rollout of main',
            GITHUB_SHA: 'c0ffee0',
            GITHUB_OUTPUT: output,
          },
        }),
      );
      expect(step.stdout).toContain('"rollout of main" (version c0ffee0)');
      const comment = await readFile(join(dir, 'teapot-comment.md'), 'utf8');
      const verdict = /^### \S+ teapot: deployment \*\*([a-z ]+)\*\*$/m.exec(comment)?.[1];
      // the simulator served FP16 before and after: no regression (a busy machine may make the baseline
      // look slower, so improved happens too); the exit code follows the verdict
      expect(['verified', 'improved', 'inconclusive']).toContain(verdict);
      expect(await readFile(output, 'utf8')).toBe(`exit=${verdict === 'inconclusive' ? 2 : 0}\n`);
    }));

  describe('bad input: one line, an exit code of its own, no stack trace', () => {
    const oneLine = (run: { stdout: string; stderr: string }, line: string) => {
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(`${line}\n`);
    };

    it('an API that does not answer', async () => {
      const url = `http://127.0.0.1:${await freePort()}`;
      const run = await teapot(
        ['deploy', '--url', url, '--api-key', 'k', '--endpoint', 'x', '--label', 'y'],
        {},
      );
      expect(run.code).toBe(GATE_EXIT.unreachable);
      oneLine(
        run,
        `teapot deploy: cannot reach the teapot API at ${url} (ECONNREFUSED); is it running? (--url or TEAPOT_URL)`,
      );
    });

    it('a wrong key', async () => {
      const run = await teapot(['deploy', '--endpoint', endpoint.id, '--label', 'y'], {
        ...env(),
        TEAPOT_API_KEY: 'wrong-key',
      });
      expect(run.code).toBe(GATE_EXIT.unauthorized);
      oneLine(
        run,
        `teapot deploy: the teapot API at ${stack.apiUrl} refused the API key (401); check --api-key or TEAPOT_API_KEY`,
      );
    });

    it('an endpoint or deployment that does not exist', async () => {
      const missing = '00000000-0000-4000-8000-000000000000';
      const byId = await teapot(['deploy', '--endpoint', missing, '--label', 'y'], env());
      expect(byId.code).toBe(GATE_EXIT.notFound);
      oneLine(byId, `teapot deploy: endpoint ${missing} not found at ${stack.apiUrl} (404)`);
      const byName = await teapot(['deploy', '--endpoint', 'no-such-endpoint', '--label', 'y'], env());
      expect(byName.code).toBe(GATE_EXIT.notFound);
      oneLine(
        byName,
        `teapot deploy: no endpoint named "no-such-endpoint" at ${stack.apiUrl} (--endpoint takes an endpoint's id or exact name)`,
      );
      const verdict = await teapot(['verdict', missing], env());
      expect(verdict.code).toBe(GATE_EXIT.notFound);
      oneLine(verdict, `teapot verdict: deployment ${missing} not found at ${stack.apiUrl} (404)`);
    });

    it('a bad flag, and a configuration field the API refuses', async () => {
      const flag = await teapot(['deploy', '--endpoint', 'x', '--label', 'y', '--threshold', '0'], env());
      expect(flag.code).toBe(GATE_EXIT.usage);
      expect(flag.stderr).toBe(
        'teapot deploy: --threshold: expected a number from 0.001 to 10, got "0"\nRun \'teapot deploy --help\' for the flags.\n',
      );
      const field = await teapot(
        ['deploy', '--endpoint', endpoint.id, '--label', 'y', '--config', 'gpuCount=lots'],
        env(),
      );
      expect(field.code).toBe(GATE_EXIT.usage);
      expect(field.stderr).toMatch(
        /^teapot deploy: the teapot API refused the deployment \(400: config\.gpuCount: .+\)\n$/,
      );
    });
  });
});

/** The `run: |` block of the step with `id: teapot` in a workflow, as bash receives it. */
function gateStepScript(markdown: string): string {
  const lines = markdown.split('\n');
  const run = lines.findIndex(
    (line, i) => i > lines.findIndex((l) => l.trim() === 'id: teapot') && line.trim() === 'run: |',
  );
  const indent = (line: string) => line.length - line.trimStart().length;
  const body: string[] = [];
  for (const line of lines.slice(run + 1)) {
    if (line.trim() !== '' && indent(line) <= indent(lines[run])) break;
    body.push(line.slice(indent(lines[run]) + 2));
  }
  return body.join('\n').trim();
}
