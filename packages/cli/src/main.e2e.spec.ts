import { freePort } from '@teapot/testing-base';
import { teapot } from './test-support/binary';

jest.setTimeout(60_000);

const quick = ['--requests', '4', '--output-tokens', '8', '--input-tokens', '16'];

describe('node dist/main.js bench', () => {
  it('exits 0 when the SLOs are met against the built-in simulator', async () => {
    const run = await teapot([
      'bench',
      ...quick,
      '--slo',
      'e2e_p99_ms=60000',
      '--slo',
      'output_tokens_per_s=1',
    ]);
    expect(run.stderr).not.toMatch(/^\s+at /m);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^e2e_p99_ms +<= 60000 +[\d.]+ +pass$/m);
    expect(run.stdout).toMatch(/^output_tokens_per_s +>= 1 +[\d.]+ +pass$/m);
  });

  it('exits 2 when an SLO is missed', async () => {
    const run = await teapot(['bench', ...quick, '--slo', 'ttft_p50_ms=0.001']);
    expect(run.code).toBe(2);
    expect(run.stdout).toMatch(/^ttft_p50_ms +<= 0\.001 +[\d.]+ +FAIL$/m);
  });

  it('exits 1 when every request fails to connect', async () => {
    const url = `http://127.0.0.1:${await freePort()}/v1`;
    const run = await teapot([
      'bench',
      '--url',
      url,
      '--model',
      'm',
      '--requests',
      '3',
      '--slo',
      'itl_p99_ms=50',
    ]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^errors +connect_refused 3$/m);
    expect(run.stderr).toContain(`teapot bench: every request failed; is ${url} up and serving m?`);
  });

  it('exits 1 on a bad flag with one line and a hint, no stack trace', async () => {
    const run = await teapot(['bench', '--concurrency', 'many']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `teapot bench: --concurrency: expected a whole number >= 1, got "many"\nRun 'teapot bench --help' for the flags.\n`,
    );
  });
});
