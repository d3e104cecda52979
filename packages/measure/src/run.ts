import { arrivalSchedule } from './arrivals';
import { judgeClientHealth, watchClientHealth, type ClientLoad } from './client-health';
import { summarize } from './metrics';
import { ConnectBackoff } from './connect-backoff';
import { deriveSeed, mulberry32 } from './random';
import { validateRunOptions } from './run-options';
import { MEASURE_VERSION } from './version';
import { warmUp, type WarmUpReport } from './warm-up';
import { createTransport, type StreamTransport } from './transport';
import { ArrivalInbox } from './arrival-inbox';
import { SendPacer } from './send-pacer';
import {
  StreamAttempt,
  type AttemptIdentity,
  type AttemptResult,
  type RequestContext,
} from './stream-request';
import {
  DEFAULT_TRANSPORT,
  type Progress,
  type RequestRecord,
  type RunOptions,
  type RunResult,
} from './types';
import { promptSource, type PromptSpec } from './workload';

const DEFAULT_TIMEOUT_MS = 300_000;
const DEFAULT_STALL_TIMEOUT_MS = 30_000;
const PROGRESS_INTERVAL_MS = 200;
/** Live tokens/s is measured over about this window. */
const PROGRESS_WINDOW_MS = 1000;
/** An arrival this close to its send time goes now: timers only have millisecond resolution. */
const EARLY_SEND_TOLERANCE_US = 200;
const KEEP_ALIVE_MS = 60_000;

/** Runs one benchmark to the end and returns its raw records and summary (metrics: packages/measure/README.md). */
export async function runBenchmark(options: RunOptions): Promise<RunResult> {
  const url = validateRunOptions(options);
  const run = new BenchmarkRun(options, url);
  return run.execute();
}

class BenchmarkRun {
  private readonly anchorNs = process.hrtime.bigint();
  private readonly wallAnchorMs = Date.now();
  private readonly context: RequestContext;
  private readonly pool: StreamTransport;
  private readonly nextPrompt: () => PromptSpec;
  private readonly inFlight = new Set<StreamAttempt>();
  private readonly records: RequestRecord[] = [];
  private readonly wakers = new Set<() => void>();
  private readonly backoff: ConnectBackoff;
  private readonly pacer = new SendPacer();
  /** A closed loop's first wave, built before the measured window (prepareFirstWave). */
  private readonly prepared: Array<{ identity: AttemptIdentity; spec: PromptSpec; attempt: StreamAttempt }> =
    [];
  private nextIndex = 0;
  private active = 0;
  private stopped = false;
  private stopReason = '';
  private aborted = false;
  private completed = 0;
  private failed = 0;
  private progressError: unknown = null;

  constructor(
    private readonly options: RunOptions,
    url: URL,
  ) {
    const { load, target } = options;
    const connections = load.kind === 'closed' ? load.concurrency : (load.maxConcurrency ?? null);
    this.pool = createTransport(options.transport ?? DEFAULT_TRANSPORT, url, {
      connections,
      keepAliveMs: KEEP_ALIVE_MS,
      lookup: target.lookup,
    });
    const basePath = url.pathname.replace(/\/+$/, '');
    const route = target.apiKind === 'chat' ? '/chat/completions' : '/completions';
    this.context = {
      pool: this.pool,
      // a query string (e.g. a gateway's ?api-version=) belongs to every request
      path: `${basePath}${route}${url.search}`,
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...target.headers },
      apiKind: target.apiKind,
      model: target.model,
      forceOutputLength: options.forceOutputLength ?? false,
      anchorNs: this.anchorNs,
      inbox: new ArrivalInbox(),
      streamOptions: { send: true, knownAccepted: false, rejectedByServer: false, retriedRequests: 0 },
      live: { outputTokens: 0 },
    };
    this.nextPrompt = promptSource(options.workload, options.seed ?? 0);
    this.backoff = new ConnectBackoff(mulberry32(deriveSeed(options.seed ?? 0, 3)));
  }

  private nowUs(): number {
    return Number(process.hrtime.bigint() - this.anchorNs) / 1000;
  }

  async execute(): Promise<RunResult> {
    const { options } = this;
    let health = watchClientHealth(this.context.inbox.lagNs);
    const onAbort = () => {
      this.aborted = true;
      this.stop('the run was aborted');
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted) onAbort();
    const watchdog = this.startWatchdog();
    let progress: NodeJS.Timeout | undefined;
    let measuredStartUs = this.nowUs();
    let measuredEndUs = measuredStartUs;
    let deadline: NodeJS.Timeout | undefined;
    let clientLoad: ClientLoad;
    let warmedUp: WarmUpReport = { chunks: 0, connections: 0, durationMs: 0 };
    try {
      if (options.warmUp !== false && !this.stopped) {
        warmedUp = await warmUp(
          () => this.stopped,
          options.transport ?? DEFAULT_TRANSPORT,
          this.pool,
          this.connectionsAhead(),
          this.context,
          () => this.prepareFirstWave(),
        );
      }
      // progress counts requests: it starts after the warm-up, which sends none to the endpoint
      progress = this.startProgress();
      const warmup = options.warmupRequests ?? 0;
      if (warmup > 0 && !this.stopped) {
        const { load } = options;
        const concurrency = load.kind === 'closed' ? load.concurrency : (load.maxConcurrency ?? warmup);
        await this.closedLoop(warmup, concurrency, true);
      }
      // client health describes the measured window, not the warm-up's JIT and connection work
      health.stop();
      health = watchClientHealth(this.context.inbox.lagNs);
      measuredStartUs = this.nowUs();
      if (options.durationS !== undefined && !this.stopped) {
        // on the run's clock: a libuv timer counts from the loop's cached time and may fire early
        const deadlineUs = measuredStartUs + options.durationS * 1e6;
        const checkDeadline = () => {
          const leftUs = deadlineUs - this.nowUs();
          if (leftUs > 0) deadline = setTimeout(checkDeadline, Math.ceil(leftUs / 1000));
          else this.stop("still running when the run's duration ended");
        };
        checkDeadline();
      }
      if (options.load.kind === 'closed') {
        await this.closedLoop(options.requests ?? null, options.load.concurrency, false);
      } else {
        await this.openLoop(measuredStartUs);
      }
      measuredEndUs = this.nowUs();
    } finally {
      clearTimeout(deadline);
      clearInterval(watchdog);
      clearInterval(progress);
      options.signal?.removeEventListener('abort', onAbort);
      this.stop('the run ended');
      clientLoad = health.stop();
      await this.pool.destroy().catch(() => undefined);
    }
    this.reportProgress(measuredEndUs);
    if (this.progressError !== null) throw this.progressError;

    const requests = this.records.sort((a, b) => a.index - b.index);
    const connectBackoff = this.backoff.summary();
    const durationUs = Math.max(0, Math.round(measuredEndUs - measuredStartUs));
    const summary = summarize(requests, { slo: options.slo, durationUs });
    const client = judgeClientHealth(clientLoad);
    const { streamOptions } = this.context;
    return {
      wallAnchorMs: this.wallAnchorMs,
      monotonicAnchorNs: this.anchorNs.toString(),
      durationUs,
      requests,
      summary: { ...summary, connectBackoff },
      connectBackoff,
      client,
      streamOptions: {
        requested: true,
        rejectedByServer: streamOptions.rejectedByServer,
        retriedRequests: streamOptions.retriedRequests,
      },
      aborted: this.aborted,
      transport: options.transport ?? DEFAULT_TRANSPORT,
      measureVersion: MEASURE_VERSION,
      warmUp: warmedUp,
    };
  }

  /**
   * Builds a closed loop's first wave of attempts (identity, prompt, parser, timing arrays) before the
   * measured window, ahead of the warm-up's full GC, which then promotes them. Built in the window, ~3 MB
   * of them at 1024 streams survived young-generation scavenges of 4-9 ms in its first second, beside the
   * first tokens. They are sent in the window like any other request: a request starts when it is written.
   */
  private prepareFirstWave(): void {
    const { load, requests, warmupRequests } = this.options;
    if (load.kind !== 'closed' || (warmupRequests ?? 0) > 0) return;
    const count = Math.min(load.concurrency, requests ?? load.concurrency);
    const withStreamOptions = this.context.streamOptions.send;
    for (let i = 0; i < count; i++) {
      const identity: AttemptIdentity = { index: this.nextIndex++, warmup: false, scheduledUs: null };
      const spec = this.nextPrompt();
      const attempt = new StreamAttempt(this.context, identity, spec, withStreamOptions);
      this.prepared.push({ identity, spec, attempt });
    }
  }

  /** Connections worth opening before the first request: as many as the run will use at once. */
  private connectionsAhead(): number {
    const { load } = this.options;
    if (load.kind === 'closed') return Math.min(load.concurrency, this.options.requests ?? load.concurrency);
    return load.maxConcurrency ?? Math.min(64, Math.ceil(load.ratePerS));
  }

  /** Stops issuing and cuts off whatever is still running: those requests are `incomplete`. */
  private stop(reason: string): void {
    if (!this.stopped) {
      this.stopped = true;
      this.stopReason = reason;
      this.context.inbox.drain();
    }
    for (const attempt of this.inFlight) attempt.fail('aborted', reason, 'incomplete');
    for (const wake of this.wakers) wake();
  }

  private async closedLoop(count: number | null, concurrency: number, warmup: boolean): Promise<void> {
    let issued = 0;
    const worker = async () => {
      while (!this.stopped && (count === null || issued < count)) {
        issued++;
        await this.issue(warmup, null);
      }
    };
    const workers = count === null ? concurrency : Math.min(concurrency, count);
    await Promise.all(Array.from({ length: workers }, worker));
  }

  private async openLoop(originUs: number): Promise<void> {
    const { options } = this;
    if (options.load.kind !== 'open') return;
    const { ratePerS, arrival, burstiness, maxConcurrency } = options.load;
    const schedule = arrivalSchedule({
      ratePerS,
      arrival,
      burstiness,
      seed: deriveSeed(options.seed ?? 0, 2),
      count: options.requests,
      durationS: options.durationS,
    });
    const running: Array<Promise<void>> = [];
    let i = 0;
    while (i < schedule.length && !this.stopped) {
      const dueUs = originUs + schedule[i];
      const waitUs = dueUs - this.nowUs();
      if (waitUs > EARLY_SEND_TOLERANCE_US) {
        await this.sleep(Math.max(1, Math.floor(waitUs / 1000)));
        continue;
      }
      if (maxConcurrency !== undefined && this.active >= maxConcurrency) {
        await this.sleep(null);
        continue;
      }
      running.push(this.issue(false, Math.round(dueUs)));
      i++;
    }
    await Promise.all(running);
  }

  /** Waits `ms`, or (null) until a request finishes; either way wakes early when the run stops. */
  private sleep(ms: number | null): Promise<void> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const wake = () => {
        clearTimeout(timer);
        this.wakers.delete(wake);
        resolve();
      };
      if (ms !== null) timer = setTimeout(wake, ms);
      this.wakers.add(wake);
    });
  }

  /** Waits while the endpoint is unreachable (see ConnectBackoff); false when the run ends meanwhile. */
  private async admitted(): Promise<boolean> {
    for (;;) {
      if (this.stopped) return false;
      const admission = this.backoff.admit(this.nowUs() / 1000);
      if (admission.kind === 'send') return true;
      if (admission.kind === 'give_up') {
        this.stop(admission.reason);
        return false;
      }
      await this.sleep(admission.ms === null ? null : Math.max(1, Math.ceil(admission.ms)));
    }
  }

  private async issue(warmup: boolean, scheduledUs: number | null): Promise<void> {
    if (!(await this.admitted())) return;
    this.active++;
    try {
      const streamOptions = this.context.streamOptions;
      let identity!: AttemptIdentity;
      let spec!: PromptSpec;
      // drawing the prompt is paced with the send: at a wave's start, 1024 of them are work as well
      const first = await this.paced(() => {
        const ready = warmup ? undefined : this.prepared.shift();
        if (ready !== undefined) {
          ({ identity, spec } = ready);
          return this.start(ready.attempt);
        }
        identity = { index: this.nextIndex++, warmup, scheduledUs };
        spec = this.nextPrompt();
        return this.attempt(identity, spec, streamOptions.send);
      });
      if (first === null) return;
      let record = first.record;
      const retry = first.retryWithoutStreamOptions
        ? await this.paced(() => {
            streamOptions.retriedRequests++;
            return this.attempt(identity, spec, false);
          })
        : null;
      if (first.retryWithoutStreamOptions && retry === null) {
        // the run ended before the retry could go out: cut off, not a failure of the endpoint
        record = { ...record, outcome: 'incomplete', error: { kind: 'aborted', message: this.stopReason } };
      } else if (retry !== null) {
        record = retry.record;
        if (retry.status === 200) {
          streamOptions.rejectedByServer = true;
          streamOptions.send = false;
        } else if (retry.status === 400 || retry.status === 422) {
          streamOptions.knownAccepted = true;
        }
      }
      this.records.push(record);
      const kind = record.error?.kind;
      if (record.ttfbUs === null && (kind === 'connect_refused' || kind === 'connect_error'))
        this.backoff.onConnectFailure(this.nowUs() / 1000);
      else if (record.outcome !== 'incomplete') this.backoff.onResponse(this.nowUs() / 1000);
      if (record.outcome === 'ok') this.completed++;
      else if (record.outcome === 'error') this.failed++;
    } finally {
      this.active--;
      for (const wake of this.wakers) wake();
    }
  }

  /**
   * Starts an attempt in the pacer's turn (see SendPacer), synchronously there so that the pacer
   * counts its cost; null when the run stopped while it waited, and nothing was sent.
   */
  private paced(start: () => Promise<AttemptResult>): Promise<AttemptResult | null> {
    return new Promise((resolve, reject) =>
      this.pacer.run(() => {
        if (this.stopped) resolve(null);
        else start().then(resolve, reject);
      }),
    );
  }

  private attempt(identity: AttemptIdentity, spec: PromptSpec, withStreamOptions: boolean) {
    return this.start(new StreamAttempt(this.context, identity, spec, withStreamOptions));
  }

  private start(attempt: StreamAttempt): Promise<AttemptResult> {
    this.inFlight.add(attempt);
    attempt.send();
    return attempt.finished.then((result) => {
      this.inFlight.delete(attempt);
      return result;
    });
  }

  /** One timer for every request's timeout and stall check, instead of a timer per request. */
  private startWatchdog(): NodeJS.Timeout {
    const timeoutMs = this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const stallMs = this.options.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS;
    const periodMs = Math.min(250, Math.max(10, Math.floor(Math.min(timeoutMs, stallMs) / 10)));
    const overdue = (attempt: StreamAttempt, nowNs: number): 'timeout' | 'stream_stalled' | null => {
      if (nowNs - attempt.startNs > timeoutMs * 1e6) return 'timeout';
      if (attempt.lastArrivalNs >= 0 && nowNs - attempt.lastArrivalNs > stallMs * 1e6)
        return 'stream_stalled';
      return null;
    };
    return setInterval(() => {
      const nowNs = Number(process.hrtime.bigint() - this.anchorNs);
      if (!this.anyInFlight((attempt) => overdue(attempt, nowNs) !== null)) return;
      // Only now, and unbudgeted: an overdue attempt's end may be waiting in the inbox, and it must
      // settle as what arrived, not as a timeout. Draining on every tick would parse a loaded run's
      // whole backlog in one piece, every 250 ms, while reads wait for their timestamps.
      this.context.inbox.drain();
      for (const attempt of this.inFlight) {
        const kind = overdue(attempt, nowNs);
        if (kind === 'timeout') attempt.fail(kind, `no complete response within ${timeoutMs} ms`);
        else if (kind === 'stream_stalled') attempt.fail(kind, `no bytes for ${stallMs} ms`);
      }
    }, periodMs);
  }

  /** Array.some over the requests in flight, without copying the set on the measuring loop. */
  private anyInFlight(test: (attempt: StreamAttempt) => boolean): boolean {
    for (const attempt of this.inFlight) if (test(attempt)) return true;
    return false;
  }

  private readonly liveSamples: Array<{ atUs: number; tokens: number }> = [];

  private startProgress(): NodeJS.Timeout | undefined {
    if (!this.options.onProgress) return undefined;
    return setInterval(() => this.reportProgress(this.nowUs()), PROGRESS_INTERVAL_MS);
  }

  private reportProgress(nowUs: number): void {
    const { onProgress } = this.options;
    if (!onProgress || this.progressError !== null) return;
    const tokens = this.context.live.outputTokens;
    const samples = this.liveSamples;
    samples.push({ atUs: nowUs, tokens });
    while (samples.length > 2 && nowUs - samples[1].atUs >= PROGRESS_WINDOW_MS * 1000) samples.shift();
    const oldest = samples[0];
    const spanS = (nowUs - oldest.atUs) / 1e6;
    const { requests, warmupRequests } = this.options;
    const progress: Progress = {
      completed: this.completed,
      failed: this.failed,
      inFlight: this.active,
      total: requests === undefined ? null : requests + (warmupRequests ?? 0),
      outputTokens: tokens,
      elapsedS: nowUs / 1e6,
      tokensPerS: spanS > 0 ? (tokens - oldest.tokens) / spanS : 0,
    };
    try {
      onProgress(progress);
    } catch (err) {
      this.progressError = err;
    }
  }
}
