import { judgeClientHealth, watchClientHealth, type ClientLoad } from './client-health';
import { summarize } from './metrics';
import { openRatePerS, openSchedule, runOpenLoop } from './open-loop';
import { ConnectBackoff } from './connect-backoff';
import { deriveSeed, mulberry32 } from './random';
import { validateRunOptions } from './run-options';
import { MEASURE_VERSION } from './version';
import { warmUp, type WarmUpReport } from './speed/warm-up';
import { rehearsalOptions, rehearsedChunks } from './speed/rehearsal';
import { createTransport, type StreamTransport } from './transport';
import { ArrivalInbox } from './arrival-inbox';
import { SendPacer } from './send-pacer';
import { ScratchShelf } from './speed/attempt-scratch';
import { TimingSlab } from './speed/timing-slab';
import { announceWindowEdge } from './speed/measured-window';
import {
  StreamAttempt,
  type AttemptIdentity,
  type AttemptResult,
  type RequestContext,
} from './stream-request';
import { DEFAULT_TRANSPORT, type RequestRecord, type RunOptions, type RunResult } from './types';
import { promptSource, type PromptSpec } from './workload';
import { RunTokenizer } from './run-tokenizer';
import { isSessionWorkload, SessionPlan, type TurnOutcome } from './sessions';
import { SessionRunner, type RequestDone } from './session-runner';
import { ProgressReporter } from './progress-reporter';
import { startWatchdog } from './watchdog';
import { turnSummary, workloadReport } from './workload-report';
import { objectArray } from './speed/object-array';

const PROGRESS_INTERVAL_MS = 200;
const KEEP_ALIVE_MS = 60_000;

function noPrompt(): PromptSpec {
  throw new TypeError('a session workload draws its prompts from its sessions');
}

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
  private readonly tokenizer: RunTokenizer | null;
  private readonly inFlight = new Set<StreamAttempt>();
  private readonly records: RequestRecord[] = objectArray();
  private readonly wakers = new Set<() => void>();
  private readonly backoff: ConnectBackoff;
  private readonly pacer = new SendPacer();
  /** A closed loop's first wave, built before the measured window (prepareFirstWave). */
  private readonly prepared: Array<{ identity: AttemptIdentity; spec: PromptSpec; attempt: StreamAttempt }> =
    objectArray();
  private nextIndex = 0;
  private active = 0;
  private stopped = false;
  private stopReason = '';
  private aborted = false;
  private completed = 0;
  private failed = 0;
  private readonly progress: ProgressReporter | null;
  /** Session workloads: sends their sessions; null for single-turn workloads. */
  private readonly sessions: SessionRunner | null;
  /** Words of the prompts sent, and of those the ones an earlier prompt's start repeats (WorkloadReport). */
  private promptWords = 0;
  private reusableWords = 0;
  /** What a request's callback threw (see guarded); the run ends with it. */
  private failure: unknown = null;

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
      scratch: new ScratchShelf(),
      timings: new TimingSlab(),
      streamOptions: { send: true, knownAccepted: false, rejectedByServer: false, retriedRequests: 0 },
      live: { outputTokens: 0 },
      outputText: { wanted: false },
    };
    // loaded before the warm-up: a large vocabulary takes seconds, none of them in the measured window
    this.tokenizer = options.tokenizer ? RunTokenizer.load(options.tokenizer) : null;
    this.context.outputText.wanted = this.tokenizer !== null;
    const seed = options.seed ?? 0;
    this.sessions = isSessionWorkload(options.workload)
      ? new SessionRunner(new SessionPlan(options.workload, seed, target.apiKind), {
          stopped: () => this.stopped,
          nowUs: () => this.nowUs(),
          issue: (warmup, scheduledUs, done, spec) => this.issue(warmup, scheduledUs, done, spec),
        })
      : null;
    this.nextPrompt =
      this.sessions === null ? promptSource(options.workload, seed, this.tokenizer ?? undefined) : noPrompt;
    this.progress = options.onProgress ? new ProgressReporter(options.onProgress) : null;
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
    const watchdog = startWatchdog(this.options, this.context, this.inFlight);
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
          this.pool,
          this.connectionsAhead(),
          options.requests === undefined ? null : options.requests + (options.warmupRequests ?? 0),
          (baseUrl, rehearsal) =>
            runBenchmark(rehearsalOptions(options, baseUrl, rehearsal)).then(rehearsedChunks),
          () => this.prepareFirstWave(),
        );
      } else {
        // as a warmed run does: a rehearsal is such a run, and what V8 compiles on it must have seen
        // a prepared wave (else "insufficient type feedback" at its first prepared request)
        this.prepareFirstWave();
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
      announceWindowEdge('start', options.target.baseUrl);
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
      announceWindowEdge('end', options.target.baseUrl);
    } finally {
      clearTimeout(deadline);
      clearInterval(watchdog);
      clearInterval(progress);
      options.signal?.removeEventListener('abort', onAbort);
      this.stop('the run ended');
      clientLoad = health.stop();
      await this.pool.destroy().catch(() => undefined);
    }
    if (this.failure !== null) throw this.failure;
    this.reportProgress(measuredEndUs);
    if (this.progress?.error != null) throw this.progress.error;

    const requests = this.records.sort((a, b) => a.index - b.index);
    const connectBackoff = this.backoff.summary();
    const durationUs = Math.max(0, Math.round(measuredEndUs - measuredStartUs));
    this.tokenizer?.countOutputs(requests);
    const tokenizer = this.tokenizer?.identity ?? null;
    const openLoop = options.load.kind === 'open';
    const summary = summarize(requests, { slo: options.slo, durationUs, tokenizer, openLoop });
    const client = judgeClientHealth(clientLoad);
    const { streamOptions } = this.context;
    return {
      wallAnchorMs: this.wallAnchorMs,
      monotonicAnchorNs: this.anchorNs.toString(),
      durationUs,
      requests,
      summary: {
        ...summary,
        connectBackoff,
        ...(this.sessions === null ? {} : { turns: turnSummary(requests) }),
        workload: workloadReport(options.workload, {
          sessions: this.sessions?.started,
          promptWords: this.promptWords,
          reusableWords: this.reusableWords,
        }),
      },
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
      ...(tokenizer ? { tokenizer } : {}),
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
    if (load.kind !== 'closed' || (warmupRequests ?? 0) > 0 || this.sessions !== null) return;
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
    return load.maxConcurrency ?? Math.min(64, Math.ceil(openRatePerS(this.options)));
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
    this.sessions?.cutPauses();
  }

  /** `count` requests (null: until the run stops), `concurrency` at a time, each stream sending its next when one ends. */
  private closedLoop(count: number | null, concurrency: number, warmup: boolean): Promise<void> {
    const streams = count === null ? concurrency : Math.min(concurrency, count);
    if (streams <= 0) return Promise.resolve();
    let issued = 0;
    let running = streams;
    const claim = (): boolean => {
      if (this.stopped || (count !== null && issued >= count)) return false;
      issued++;
      return true;
    };
    return new Promise((resolve) => {
      // one continuation for every stream, rather than a promise chain per request (see issue)
      const next = (): void => {
        if (this.stopped || (count !== null && issued >= count)) {
          if (--running === 0) resolve();
          return;
        }
        // a session stream runs one session after another: streams are sessions in flight
        if (this.sessions !== null) this.sessions.run(warmup, null, claim, next);
        else if (claim()) this.issue(warmup, null, next);
      };
      for (let s = 0; s < streams; s++) next();
    });
  }

  /** Arrivals start sessions (session workloads) or send one request each; see runOpenLoop. */
  private openLoop(originUs: number): Promise<void> {
    const { options } = this;
    if (options.load.kind !== 'open') return Promise.resolve();
    let issued = 0;
    const allIssued = () => options.requests !== undefined && issued >= options.requests;
    const claim = (): boolean => {
      if (this.stopped || allIssued()) return false;
      issued++;
      return true;
    };
    const schedule = openSchedule(options, this.tokenizer);
    // single-turn prompts are drawn ahead as a trace's are: the draw then delays no send
    if (schedule.promptAt === null && this.sessions === null) schedule.promptAt = () => this.nextPrompt();
    return runOpenLoop(schedule, originUs, options.load, {
      done: () => this.stopped || allIssued(),
      nowUs: () => this.nowUs(),
      active: () => this.active,
      sleep: (ms) => this.sleep(ms),
      sendDueIn: (inUs) => this.context.inbox.sendDueIn(inUs),
      polled: () => this.context.inbox.polled(),
      start: (scheduledUs, prompt, ended) => {
        if (this.sessions !== null) this.sessions.run(false, scheduledUs, claim, ended);
        else if (claim()) this.issue(false, scheduledUs, ended, prompt);
        else ended();
      },
    });
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

  /**
   * One request, from its admission to its kept record, then `done` (also when the run stops before
   * it is sent). Callbacks, not a promise chain: at 1024 streams each request's chain of promises,
   * closures and contexts was ~2 KB of young objects that survived the scavenge after a wave started.
   */
  private issue(
    warmup: boolean,
    scheduledUs: number | null,
    done: RequestDone,
    given: PromptSpec | null = null,
  ): void {
    if (this.stopped) return done(null);
    const admission = this.backoff.admit(this.nowUs() / 1000);
    if (admission.kind === 'give_up') {
      this.stop(admission.reason);
      return done(null);
    }
    if (admission.kind === 'wait') {
      // the endpoint is unreachable (see ConnectBackoff): ask again later, or when a request ends
      const ms = admission.ms === null ? null : Math.max(1, Math.ceil(admission.ms));
      void this.sleep(ms).then(() => this.issue(warmup, scheduledUs, done, given));
      return;
    }
    this.active++;
    // drawing the prompt is paced with the send: at a wave's start, 1024 of them are work as well
    this.pacer.run(() =>
      this.guarded(() => {
        if (this.stopped) return this.requestEnded(done);
        const ready = warmup || given !== null ? undefined : this.prepared.shift();
        const identity = ready?.identity ?? { index: this.nextIndex++, warmup, scheduledUs };
        const spec = given ?? ready?.spec ?? this.nextPrompt();
        this.promptWords += spec.promptWords;
        this.reusableWords += spec.reusableWords;
        const attempt =
          ready?.attempt ?? new StreamAttempt(this.context, identity, spec, this.context.streamOptions.send);
        this.send(attempt, (first) => this.firstAttemptSettled(identity, spec, first, done));
      }),
    );
  }

  private firstAttemptSettled(
    identity: AttemptIdentity,
    spec: PromptSpec,
    first: AttemptResult,
    done: RequestDone,
  ): void {
    if (!first.retryWithoutStreamOptions) return this.keep(first.record, done, first.answer);
    // the retry goes out in the pacer's turn like any send
    this.pacer.run(() =>
      this.guarded(() => {
        if (this.stopped) {
          // the run ended before the retry could go out: cut off, not a failure of the endpoint
          const error = { kind: 'aborted' as const, message: this.stopReason };
          return this.keep({ ...first.record, outcome: 'incomplete', error }, done, null);
        }
        const { streamOptions } = this.context;
        streamOptions.retriedRequests++;
        const retry = new StreamAttempt(this.context, identity, spec, false);
        this.send(retry, (result) => {
          if (result.status === 200) {
            streamOptions.rejectedByServer = true;
            streamOptions.send = false;
          } else if (result.status === 400 || result.status === 422) {
            streamOptions.knownAccepted = true;
          }
          this.keep(result.record, done, result.answer);
        });
      }),
    );
  }

  private send(attempt: StreamAttempt, settled: (result: AttemptResult) => void): void {
    this.inFlight.add(attempt);
    attempt.send((result) =>
      this.guarded(() => {
        this.inFlight.delete(attempt);
        settled(result);
      }),
    );
  }

  /** A request's final record: kept, counted, and told to the connect backoff. */
  private keep(record: RequestRecord, done: RequestDone, answer: string | null): void {
    this.records.push(record);
    const kind = record.error?.kind;
    if (record.ttfbUs === null && (kind === 'connect_refused' || kind === 'connect_error'))
      this.backoff.onConnectFailure(this.nowUs() / 1000);
    else if (record.outcome !== 'incomplete') this.backoff.onResponse(this.nowUs() / 1000);
    if (record.outcome === 'ok') this.completed++;
    else if (record.outcome === 'error') this.failed++;
    const outcome =
      this.sessions === null
        ? null
        : { ok: record.outcome === 'ok', outputTokens: record.outputTokens, answer };
    this.requestEnded(done, outcome);
  }

  private requestEnded(done: RequestDone, outcome: TurnOutcome | null = null): void {
    this.active--;
    for (const wake of this.wakers) wake();
    done(outcome);
  }

  /**
   * Runs a step of a request's life that is called back from the event loop (the pacer's turn, an
   * attempt's end): a bug thrown there ends the run with that error instead of escaping to the loop.
   */
  private guarded(step: () => void): void {
    try {
      step();
    } catch (err) {
      if (this.failure === null) this.failure = err;
      this.stop('the run failed');
    }
  }

  private startProgress(): NodeJS.Timeout | undefined {
    if (this.progress === null) return undefined;
    return setInterval(() => this.reportProgress(this.nowUs()), PROGRESS_INTERVAL_MS);
  }

  private reportProgress(nowUs: number): void {
    const { requests, warmupRequests } = this.options;
    this.progress?.report(nowUs, {
      completed: this.completed,
      failed: this.failed,
      inFlight: this.active,
      total: requests === undefined ? null : requests + (warmupRequests ?? 0),
      outputTokens: this.context.live.outputTokens,
    });
  }
}
