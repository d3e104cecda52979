/** Injection token of the validated worker environment (parsed once, by createWorkerApp). */
export const WORKER_ENV = Symbol('WORKER_ENV');

/** Injection token of the time source, so schedule logic can be driven at a pinned time. */
export const CLOCK = Symbol('CLOCK');

/**
 * Injection token: whether the modules start their queue workers and periodic chores on boot.
 * False when a script or test drives the services itself (`tick()`, `reap()`, `runDue()`).
 */
export const AUTO_START = Symbol('AUTO_START');

/**
 * Injection token of the resolver behind the URL policy's connect-time check (endpoints and webhook
 * receivers): dns.lookup, or a test's stub standing in for DNS.
 */
export const HOST_RESOLVER = Symbol('HOST_RESOLVER');

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
