import {
  UsageError,
  numberFrom,
  oneOf,
  positiveNumber,
  readFlags,
  wholeNumber,
  type FlagOptions,
} from '@teapot/command-line';
import { DEPLOYMENT_SETTINGS, type VerdictClass } from '@teapot/contracts';

/** Where `npm start` serves the API; TEAPOT_URL or --url for any other. */
export const DEFAULT_API_URL = 'http://127.0.0.1:3000';
export const GATE_DEFAULTS = { timeoutS: 1800, failOn: ['regressed', 'inconclusive'] } as const;
const FAIL_ON_CLASSES = ['regressed', 'inconclusive'] as const;

/** The flags `teapot deploy` and `teapot verdict` share: where the API is, how long to wait, what fails. */
const GATE_FLAGS = {
  help: { type: 'boolean', short: 'h' },
  url: { type: 'string' },
  'api-key': { type: 'string' },
  'dashboard-url': { type: 'string' },
  timeout: { type: 'string' },
  'fail-on': { type: 'string' },
  markdown: { type: 'string' },
} as const satisfies FlagOptions;

const DEPLOY_FLAGS = {
  ...GATE_FLAGS,
  endpoint: { type: 'string' },
  label: { type: 'string' },
  version: { type: 'string' },
  config: { type: 'string', multiple: true },
  profile: { type: 'string', multiple: true },
  'runs-per-profile': { type: 'string' },
  'baseline-runs': { type: 'string' },
  threshold: { type: 'string' },
  'first-run-delay': { type: 'string' },
  'include-saturated': { type: 'boolean' },
} as const satisfies FlagOptions;

const VERDICT_FLAGS = { ...GATE_FLAGS, 'no-wait': { type: 'boolean' } } as const satisfies FlagOptions;

export interface GateArgs {
  help: boolean;
  apiUrl: string;
  /** A secret: never printed. */
  apiKey: string;
  /** The dashboard the API serves at its `/` unless --dashboard-url says otherwise. */
  dashboardUrl: string;
  timeoutS: number;
  /** Verdict classes that make the exit code non-zero. */
  failOn: ReadonlySet<Exclude<VerdictClass, 'passed'>>;
  markdown: string | null;
}

export interface DeployArgs extends GateArgs {
  endpoint: string;
  /** The POST /deployments body but `endpointId`, as the API validates it. */
  deployment: {
    label: string;
    version?: string;
    config?: Record<string, unknown>;
    settings: Record<string, unknown>;
  };
}

export interface VerdictArgs extends GateArgs {
  deploymentId: string;
  wait: boolean;
}

export function parseDeployArgs(argv: string[], env: NodeJS.ProcessEnv): DeployArgs {
  const values = readFlags(argv, DEPLOY_FLAGS);
  const gate = gateArgsOf(values, env);
  if (gate.help) return { ...gate, endpoint: '', deployment: { label: '', settings: {} } };
  const endpoint = required('--endpoint', values.endpoint, 'the endpoint (id or exact name) that changed');
  const label = required('--label', values.label, 'what changed, e.g. --label "vLLM 0.10.1, FP16 weights"');
  const S = DEPLOYMENT_SETTINGS;
  const settings: Record<string, unknown> = {
    runsPerProfile: wholeNumber(
      '--runs-per-profile',
      values['runs-per-profile'],
      S.runsPerProfile.min,
      S.runsPerProfile.max,
    ),
    baselineRuns: wholeNumber(
      '--baseline-runs',
      values['baseline-runs'],
      S.baselineRuns.min,
      S.baselineRuns.max,
    ),
    threshold: numberFrom('--threshold', values.threshold, S.threshold.min, S.threshold.max),
    firstRunDelayS: wholeNumber(
      '--first-run-delay',
      values['first-run-delay'],
      S.firstRunDelayS.min,
      S.firstRunDelayS.max,
    ),
    profileIds: values.profile,
    includeSaturated: values['include-saturated'],
  };
  for (const key of Object.keys(settings)) if (settings[key] === undefined) delete settings[key];
  const config = values.config === undefined ? undefined : configOf(values.config);
  return {
    ...gate,
    endpoint,
    deployment: {
      label,
      ...(values.version === undefined ? {} : { version: values.version }),
      ...(config ? { config } : {}),
      settings,
    },
  };
}

/** `teapot verdict <deployment-id> [flags]`: the id comes first, as the command's object. */
export function parseVerdictArgs(argv: string[], env: NodeJS.ProcessEnv): VerdictArgs {
  const [first, ...rest] = argv;
  const named = first !== undefined && !first.startsWith('-');
  const values = readFlags(named ? rest : argv, VERDICT_FLAGS);
  const gate = gateArgsOf(values, env);
  if (!named && !gate.help)
    throw new UsageError('name the deployment: teapot verdict <deployment-id> (teapot deploy prints it)');
  return { ...gate, deploymentId: named ? first : '', wait: values['no-wait'] !== true };
}

function gateArgsOf(
  values: {
    help?: boolean;
    url?: string;
    'api-key'?: string;
    'dashboard-url'?: string;
    timeout?: string;
    'fail-on'?: string;
    markdown?: string;
  },
  env: NodeJS.ProcessEnv,
): GateArgs {
  const help = values.help === true;
  const apiUrl = baseUrl('--url', values.url ?? env.TEAPOT_URL ?? DEFAULT_API_URL);
  const apiKey = values['api-key'] ?? env.TEAPOT_API_KEY ?? '';
  if (apiKey === '' && !help)
    throw new UsageError('--api-key: the teapot API needs a key (--api-key KEY or TEAPOT_API_KEY)');
  return {
    help,
    apiUrl,
    apiKey,
    dashboardUrl: baseUrl('--dashboard-url', values['dashboard-url'] ?? apiUrl),
    timeoutS: positiveNumber('--timeout', values.timeout) ?? GATE_DEFAULTS.timeoutS,
    failOn: failOnOf(values['fail-on']),
    markdown: values.markdown ?? null,
  };
}

/** `regressed,inconclusive` (default), one of them, or `none`: a verdict class outside it exits 0. */
function failOnOf(text: string | undefined): GateArgs['failOn'] {
  if (text === undefined) return new Set(GATE_DEFAULTS.failOn);
  if (text === 'none') return new Set();
  return new Set(text.split(',').map((word) => oneOf('--fail-on', word.trim(), FAIL_ON_CLASSES)));
}

/**
 * `--config FIELD=VALUE`, repeatable: a field of the new serving configuration. A value that reads
 * as JSON (a number, true, false, null, a "quoted string") is sent as that; any other as text, so
 * `engineVersion=0.10.1` is text and `tensorParallel=2` a number. The API names a field it refuses.
 */
function configOf(items: readonly string[]): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const item of items) {
    const at = item.indexOf('=');
    if (at <= 0) throw new UsageError(`--config: expected FIELD=VALUE, e.g. weightQuant=fp16, got "${item}"`);
    const field = item.slice(0, at).trim();
    const text = item.slice(at + 1);
    config[field] = jsonOrText(text);
  }
  return config;
}

function jsonOrText(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return value === null || ['number', 'boolean', 'string'].includes(typeof value) ? value : text;
  } catch {
    return text;
  }
}

function baseUrl(flag: string, text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`${flag}: expected an http(s) URL such as ${DEFAULT_API_URL}, got "${text}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`${flag}: expected an http(s) URL such as ${DEFAULT_API_URL}, got "${text}"`);
  return url.toString().replace(/\/+$/, '');
}

function required(flag: string, text: string | undefined, what: string): string {
  if (text === undefined || text.trim() === '') throw new UsageError(`${flag}: required: ${what}`);
  return text;
}
