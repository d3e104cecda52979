import { UsageError } from '@teapot/command-line';
import { DEFAULT_API_URL, parseDeployArgs, parseVerdictArgs } from './gate-args';

const env = { TEAPOT_API_KEY: 'key-from-env' };

describe('parseDeployArgs', () => {
  it('reads the deployment, its settings and typed configuration fields into the API body', () => {
    const args = parseDeployArgs(
      [
        ...['--endpoint', 'llama-fp8', '--label', 'FP16 weights', '--version', 'abc123'],
        ...[
          '--config',
          'weightQuant=fp16',
          '--config',
          'tensorParallel=2',
          '--config',
          'engineVersion=0.10.1',
        ],
        ...[
          '--config',
          'chunkedPrefill=true',
          '--config',
          'note="0.10"',
          '--config',
          'specDecodeMethod=null',
        ],
        ...['--runs-per-profile', '4', '--threshold', '0.2', '--include-saturated', '--profile', 'p1'],
      ],
      env,
    );
    expect(args.endpoint).toBe('llama-fp8');
    expect(args.deployment).toEqual({
      label: 'FP16 weights',
      version: 'abc123',
      config: {
        weightQuant: 'fp16',
        tensorParallel: 2,
        engineVersion: '0.10.1',
        chunkedPrefill: true,
        note: '0.10',
        specDecodeMethod: null,
      },
      settings: { runsPerProfile: 4, threshold: 0.2, includeSaturated: true, profileIds: ['p1'] },
    });
    expect(args).toMatchObject({
      apiUrl: DEFAULT_API_URL,
      apiKey: 'key-from-env',
      dashboardUrl: DEFAULT_API_URL,
    });
    expect([...args.failOn]).toEqual(['regressed', 'inconclusive']);
  });

  it('takes the URL and key from flags over the environment, and the dashboard from the API URL', () => {
    const args = parseDeployArgs(
      ['--endpoint', 'e', '--label', 'l', '--url', 'https://teapot.example.com/api/', '--api-key', 'k'],
      { TEAPOT_URL: 'http://elsewhere:3000', TEAPOT_API_KEY: 'other' },
    );
    expect(args).toMatchObject({
      apiUrl: 'https://teapot.example.com/api',
      apiKey: 'k',
      dashboardUrl: 'https://teapot.example.com/api',
    });
  });

  it.each([
    [['--label', 'l'], '--endpoint: required: the endpoint (id or exact name) that changed'],
    [['--endpoint', 'e'], '--label: required: what changed, e.g. --label "vLLM 0.10.1, FP16 weights"'],
    [
      ['--endpoint', 'e', '--label', 'l', '--runs-per-profile', '0'],
      '--runs-per-profile: expected a whole number from 1 to 20, got "0"',
    ],
    [
      ['--endpoint', 'e', '--label', 'l', '--fail-on', 'slower'],
      '--fail-on: expected one of regressed, inconclusive, got "slower"',
    ],
    [
      ['--endpoint', 'e', '--label', 'l', '--config', 'fp16'],
      '--config: expected FIELD=VALUE, e.g. weightQuant=fp16, got "fp16"',
    ],
    [
      ['--endpoint', 'e', '--label', 'l', '--url', 'ftp://x'],
      '--url: expected an http(s) URL such as http://127.0.0.1:3000, got "ftp://x"',
    ],
    [['--endpoint', 'e', '--label', 'l', 'extra'], 'unexpected argument "extra": every setting is a --flag'],
  ])('refuses %j naming the flag', (argv, message) => {
    expect(() => parseDeployArgs(argv, env)).toThrow(new UsageError(message));
  });

  it('needs a key, and never asks for one for --help', () => {
    expect(() => parseDeployArgs(['--endpoint', 'e', '--label', 'l'], {})).toThrow(
      '--api-key: the teapot API needs a key (--api-key KEY or TEAPOT_API_KEY)',
    );
    expect(parseDeployArgs(['--help'], {}).help).toBe(true);
  });
});

describe('parseVerdictArgs', () => {
  it('takes the deployment id first, then flags; --fail-on none fails on nothing', () => {
    const args = parseVerdictArgs(['d-1', '--no-wait', '--fail-on', 'none', '--markdown', 'out.md'], env);
    expect(args).toMatchObject({ deploymentId: 'd-1', wait: false, markdown: 'out.md' });
    expect(args.failOn.size).toBe(0);
  });

  it('refuses a missing id', () => {
    expect(() => parseVerdictArgs(['--no-wait'], env)).toThrow(
      'name the deployment: teapot verdict <deployment-id> (teapot deploy prints it)',
    );
  });
});
