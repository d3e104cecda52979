import { writeFile } from 'node:fs/promises';
import { verdictClass } from '@teapot/contracts';
import type { CliIo } from '../cli';
import { StatusLine } from '../progress';
import type { DeployArgs, GateArgs, VerdictArgs } from './gate-args';
import { ApiFailure, TeapotApi, type Deployment } from './teapot-api';
import { renderMarkdown, renderVerdict, type ReportContext } from './verdict-report';

/**
 * Exit codes of `teapot deploy` and `teapot verdict`. 1 and 2 are verdicts (what `--fail-on`
 * names); from 3 up the gate could not judge, each cause its own code so a CI job can tell them
 * apart. Bad flags are 3 here, not bench's 1, since 1 means regressed.
 */
export const GATE_EXIT = {
  passed: 0,
  regressed: 1,
  inconclusive: 2,
  usage: 3,
  unreachable: 4,
  unauthorized: 5,
  notFound: 6,
  apiError: 7,
  interrupted: 130,
} as const;

const FAILURE_EXIT: Readonly<Record<ApiFailure['kind'], number>> = {
  refused: GATE_EXIT.usage,
  unreachable: GATE_EXIT.unreachable,
  unauthorized: GATE_EXIT.unauthorized,
  not_found: GATE_EXIT.notFound,
  api_error: GATE_EXIT.apiError,
};

/** How often the deployment is read while its runs are measured. */
export const POLL_MS = 1_000;

/** `teapot deploy`: announces the deployment, waits for its verdict, reports it, exits by it. */
export async function deploy(args: DeployArgs, io: CliIo): Promise<number> {
  const api = new TeapotApi(args.apiUrl, args.apiKey);
  const endpoint = await api.endpoint(args.endpoint);
  if (io.signal?.aborted) {
    io.stderr.write('teapot deploy: stopped before announcing the deployment; nothing was recorded\n');
    return GATE_EXIT.interrupted;
  }
  const created = await api.createDeployment({ endpointId: endpoint.id, ...args.deployment });
  const work = [
    `${created.runs.length} run${created.runs.length === 1 ? '' : 's'}`,
    ...(created.sweeps.length > 0 ? [`${created.sweeps.length} capacity searches`] : []),
  ].join(' and ');
  io.stderr.write(
    `teapot deploy: deployment ${created.id} announced on ${endpoint.name}: ${work} queued; ` +
      `waiting up to ${args.timeoutS} s for the verdict (Ctrl-C stops waiting, not the verification)\n`,
  );
  return awaitAndReport(api, created, endpoint.name, args, io, 'teapot deploy');
}

/** `teapot verdict <id>`: reads a deployment's verdict, waiting for it unless --no-wait. */
export async function verdict(args: VerdictArgs, io: CliIo): Promise<number> {
  const api = new TeapotApi(args.apiUrl, args.apiKey);
  const deployment = await api.deployment(args.deploymentId);
  const endpointName = await api.endpoint(deployment.endpointId).then(
    (endpoint) => endpoint.name,
    () => deployment.endpointId,
  );
  if (!args.wait || deployment.verdict !== 'pending') return report(deployment, endpointName, args, io);
  return awaitAndReport(api, deployment, endpointName, args, io, 'teapot verdict');
}

/**
 * The wait with a status line, then the report. Ctrl-C or the timeout end the wait only: the
 * deployment keeps being verified, and the way to read it later is printed.
 */
async function awaitAndReport(
  api: TeapotApi,
  first: Deployment,
  endpointName: string,
  args: GateArgs,
  io: CliIo,
  command: string,
): Promise<number> {
  const later = `read its verdict later with: teapot verdict ${first.id}`;
  const line = new StatusLine(io.stderr, command);
  const started = Date.now();
  let deployment = first;
  try {
    for (;;) {
      if (deployment.verdict !== 'pending') break;
      const elapsedS = (Date.now() - started) / 1000;
      if (io.signal?.aborted) {
        line.finish();
        io.stderr.write(
          `${command}: stopped waiting; deployment ${first.id} keeps being verified; ${later}\n`,
        );
        return GATE_EXIT.interrupted;
      }
      if (elapsedS >= args.timeoutS)
        return await report(
          deployment,
          endpointName,
          args,
          io,
          `no verdict within ${args.timeoutS} s; ${later}`,
        );
      line.show(() => waitStatus(deployment, elapsedS, args.timeoutS));
      await pause(POLL_MS, io.signal);
      deployment = await api.deployment(first.id);
    }
  } catch (error) {
    if (error instanceof ApiFailure)
      throw new ApiFailure(error.kind, `${error.message}; deployment ${first.id}: ${later}`);
    throw error;
  } finally {
    line.finish();
  }
  return report(deployment, endpointName, args, io);
}

/** Prints the verdict (and writes the Markdown); the exit code follows --fail-on. */
async function report(
  deployment: Deployment,
  endpointName: string,
  args: GateArgs,
  io: CliIo,
  unfinished?: string,
): Promise<number> {
  const context: ReportContext = {
    endpointName,
    apiUrl: args.apiUrl,
    dashboardUrl: args.dashboardUrl,
    unfinished,
  };
  io.stdout.write(renderVerdict(deployment, context));
  if (args.markdown !== null) {
    try {
      await writeFile(args.markdown, renderMarkdown(deployment, context));
    } catch (error) {
      throw new ApiFailure(
        'refused',
        `--markdown: cannot write ${args.markdown} (${(error as NodeJS.ErrnoException).code ?? error})`,
      );
    }
  }
  const verdictOf = deployment.verdict === 'pending' ? 'inconclusive' : verdictClass(deployment.verdict);
  if (verdictOf === 'passed' || !args.failOn.has(verdictOf)) return GATE_EXIT.passed;
  return verdictOf === 'regressed' ? GATE_EXIT.regressed : GATE_EXIT.inconclusive;
}

/** `3 runs: 1 succeeded, 1 running, 1 queued · 12 s of 1800 s` */
function waitStatus(deployment: Deployment, elapsedS: number, timeoutS: number): string {
  const count = (items: Array<{ status: string }>, noun: string) => {
    if (items.length === 0) return null;
    const byStatus = new Map<string, number>();
    for (const item of items) byStatus.set(item.status, (byStatus.get(item.status) ?? 0) + 1);
    return `${items.length} ${noun}: ${[...byStatus].map(([status, n]) => `${n} ${status}`).join(', ')}`;
  };
  const parts = [count(deployment.runs, 'runs'), count(deployment.sweeps, 'capacity searches')].filter(
    (part): part is string => part !== null,
  );
  const work = parts.length > 0 ? parts.join(' · ') : 'comparing';
  return `deployment ${deployment.id.slice(0, 8)}: ${work} · ${Math.round(elapsedS)} s of ${timeoutS} s`;
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** An ApiFailure's exit code. */
export function exitCodeOf(failure: ApiFailure): number {
  return FAILURE_EXIT[failure.kind];
}
