import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;
const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;

/**
 * A lease on one endpoint: two benchmarks of one endpoint at once disturb each other's numbers.
 * Taken with SET NX PX and a random token, renewed every third of its lifetime while held, and
 * released only by its holder (compare-and-delete), so a dead holder's lease lapses by itself.
 */
export class EndpointLease {
  private renewTimer: NodeJS.Timeout | null = null;
  private lostHandler: ((reason: string) => void) | null = null;
  private released = false;

  private constructor(
    private readonly redis: Redis,
    readonly key: string,
    readonly token: string,
    private readonly ttlMs: number,
  ) {}

  /** The lease, or null when another holder has the endpoint. */
  static async acquire(
    redis: Redis,
    key: string,
    owner: string,
    ttlMs: number,
  ): Promise<EndpointLease | null> {
    const token = `${owner}/${randomUUID()}`;
    const ok = await redis.set(key, token, 'PX', ttlMs, 'NX');
    if (ok !== 'OK') return null;
    const lease = new EndpointLease(redis, key, token, ttlMs);
    lease.scheduleRenewal();
    return lease;
  }

  /** Who holds the endpoint now (their token), for messages. */
  static holder(redis: Redis, key: string): Promise<string | null> {
    return redis.get(key);
  }

  /** Called once if the lease is found taken by someone else while held. */
  onLost(handler: (reason: string) => void): void {
    this.lostHandler = handler;
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    if (this.renewTimer) clearTimeout(this.renewTimer);
    await this.redis.eval(RELEASE, 1, this.key, this.token).catch(() => undefined);
  }

  private scheduleRenewal(): void {
    this.renewTimer = setTimeout(() => void this.renew(), Math.max(100, Math.floor(this.ttlMs / 3)));
    this.renewTimer.unref();
  }

  private async renew(): Promise<void> {
    if (this.released) return;
    let renewed: unknown;
    try {
      renewed = await this.redis.eval(RENEW, 1, this.key, this.token, String(this.ttlMs));
    } catch {
      // Redis unreachable: keep trying; the lease may lapse, which the next renewal detects.
      renewed = 1;
    }
    if (this.released) return;
    // A lease that lapsed (e.g. Redis was away) but nobody took is simply taken again.
    if (renewed !== 1) renewed = await this.retake();
    if (renewed === 1) {
      this.scheduleRenewal();
      return;
    }
    this.released = true;
    this.lostHandler?.(`the endpoint lock ${this.key} lapsed and was taken by another worker`);
  }

  private async retake(): Promise<number> {
    const ok = await this.redis.set(this.key, this.token, 'PX', this.ttlMs, 'NX').catch(() => null);
    return ok === 'OK' ? 1 : 0;
  }
}
