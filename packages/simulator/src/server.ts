import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Completions } from './completions';
import { Engine, type EngineStats, type StepRecord } from './engine';
import { ServerMetrics } from './metrics';
import { DEFAULT_GROUND_TRUTH_LIMITS, GroundTruthStore, type GroundTruth } from './ground-truth';
import { readBody, sendError } from './http-io';
import {
  DeploymentError,
  decodeStepTimeS,
  describeDeployment,
  resolveDeployment,
  type Deployment,
} from './latency-model';
import { LiveDeployment, type SimulatorReconfiguration } from './live-deployment';
import { mulberry32 } from '@teapot/random';
import { deriveSeed } from './rng';
import { route } from './routes';
import { groundTruthCapacity } from './capacity-truth';
import type { LiveCapacityQuestion } from './capacity-request';
import { resolveSettings, schedulerOptionsOf, type SimulatorOptions } from './settings';

export type { SimulatorOptions } from './settings';
export type { SimulatorReconfiguration } from './live-deployment';
export { DeploymentError };

export interface SimulatorStats {
  deployment: string;
  /** Modelled decode step at batch 1 and a 1-token context, ms. */
  singleStreamMsPerToken: number;
  openResponses: number;
  groundTruthResponses: number;
  engine: EngineStats;
}

export interface RunningSimulator {
  /** "http://127.0.0.1:PORT/v1" */
  baseUrl: string;
  port: number;
  /** The deployment served now. */
  readonly deployment: Deployment;
  /**
   * Switches to another configuration from the next engine step on, as redeploying the endpoint
   * would (also `POST /v1/_teapot/deployment`). Throws DeploymentError when it cannot be served.
   */
  reconfigure(change: SimulatorReconfiguration): SimulatorStats;
  groundTruth(responseId: string): GroundTruth | undefined;
  stats(): SimulatorStats;
  /** The engine steps that ended after sinceNs (of the last 65,536): which carried prefill, decodes, drafts. */
  steps(sinceNs?: bigint): StepRecord[];
  /** Close the listener: new connections get ECONNREFUSED; open streams carry on. */
  stopAccepting(): Promise<void>;
  /** Listen again on the same port. */
  resumeAccepting(): Promise<void>;
  /** Ends every open stream and connection and stops the server. */
  close(): Promise<void>;
}

/**
 * Starts an OpenAI-compatible server whose tokens come from a batching engine driven by the
 * deployment's latency model (engine.ts), recording what it sent (ground-truth.ts) for benchmarks.
 */
export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const deployment = resolveDeployment(options);
  const settings = resolveSettings(options, deployment);
  const seed = options.seed ?? 1;
  const chunkedPrefill = options.chunkedPrefill ?? false;
  const engine = new Engine({
    deployment,
    ...schedulerOptionsOf(settings, chunkedPrefill),
    jitter: settings.jitter,
    random: mulberry32(deriveSeed(seed, -1)),
    acceptanceRandom: mulberry32(deriveSeed(seed, -3)),
    spinNs: BigInt(Math.round((options.spinUs ?? 1000) * 1000)),
    maxLagNs: BigInt(Math.round((options.maxLagMs ?? 50) * 1e6)),
  });
  const live = new LiveDeployment(deployment, options, settings, chunkedPrefill, engine);
  const store = new GroundTruthStore({ ...DEFAULT_GROUND_TRUTH_LIMITS, ...options.groundTruthLimits });
  const modelName = options.servedModelName ?? deployment.model.name;
  const metrics = new ServerMetrics({
    modelName,
    engine: () => engine.state(),
    speculativeTokens: () => settings.speculativeTokens,
  });
  const completions = new Completions({
    engine,
    store,
    settings,
    modelName,
    seed,
    fault: options.fault,
    metrics,
  });
  const stats = (): SimulatorStats => ({
    deployment: describeDeployment(live.deployment),
    singleStreamMsPerToken: decodeStepTimeS(live.deployment, 1, 1) * 1e3,
    openResponses: completions.openResponses,
    groundTruthResponses: store.size,
    engine: engine.stats(),
  });
  const routes = {
    completions,
    store,
    deployment: live,
    modelName,
    get maxModelLen() {
      return settings.maxModelLen;
    },
    stats,
    metrics: (accept: string | undefined) => metrics.render(accept),
    steps: (sinceNs: bigint) => engine.stepHistory(sinceNs),
    capacity: (question: LiveCapacityQuestion) =>
      groundTruthCapacity({
        ...question,
        deployment: live.deployment,
        jitter: settings.jitter,
        scheduler: schedulerOptionsOf(settings, live.chunkedPrefill),
      }),
  };
  const server = createServer({ noDelay: true, keepAlive: true }, (req, res) => {
    readBody(req)
      .then((rawBody) => route(routes, req, res, rawBody))
      .catch((error: unknown) => sendError(res, error));
  });
  const listener = new Listener(server, options.host ?? '127.0.0.1');
  await listener.listen(options.port ?? 0);

  return {
    baseUrl: listener.baseUrl,
    port: listener.port,
    get deployment() {
      return live.deployment;
    },
    reconfigure: (change) => {
      live.reconfigure(change);
      return stats();
    },
    groundTruth: (responseId) => store.get(responseId)?.toGroundTruth(),
    stats,
    steps: (sinceNs = 0n) => engine.stepHistory(sinceNs),
    stopAccepting: async () => listener.stopAccepting(),
    resumeAccepting: () => listener.resumeAccepting(),
    close: async () => {
      if (listener.closed) return;
      engine.close();
      completions.finishAll();
      await listener.close();
    },
  };
}

/** The HTTP listener: its sockets (so close() ends keep-alive connections too) and stop/resume on one port. */
class Listener {
  private readonly sockets = new Set<Socket>();
  private listening = false;
  closed = false;
  port = 0;

  constructor(
    private readonly server: Server,
    private readonly host: string,
  ) {
    server.keepAliveTimeout = 30_000;
    server.on('connection', (socket: Socket) => {
      socket.setNoDelay(true);
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  get baseUrl(): string {
    return `http://${this.host.includes(':') ? `[${this.host}]` : this.host}:${this.port}/v1`;
  }

  listen(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, this.host, () => {
        this.server.off('error', reject);
        this.port = (this.server.address() as AddressInfo).port;
        this.listening = true;
        resolve();
      });
    });
  }

  stopAccepting(): void {
    if (!this.listening) return;
    this.listening = false;
    this.server.close();
  }

  async resumeAccepting(): Promise<void> {
    if (this.listening || this.closed) return;
    await this.listen(this.port);
  }

  async close(): Promise<void> {
    this.closed = true;
    const done = new Promise<void>((resolve) => {
      if (!this.listening) return resolve();
      this.server.close(() => resolve());
    });
    this.listening = false;
    for (const socket of this.sockets) socket.destroy();
    this.server.closeAllConnections();
    await done;
  }
}
