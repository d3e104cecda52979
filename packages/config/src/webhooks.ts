import { z } from 'zod';
import {
  DEFAULT_RETRY_SCHEDULE,
  DEFAULT_TIMEOUT_MS,
  parseRetrySchedule,
  webhookUrlPolicy,
} from '@teapot/webhooks';
import { parsedBy, wholeNumber } from './variables';

/** Where users reach the API: delivered bodies link to resources under it. */
export const publicUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL, e.g. https://teapot.example.com' })
  .default('http://127.0.0.1:3000');

/** TEAPOT_WEBHOOK_URL_ALLOW, read into a policy (the API checks registrations, the worker connections). */
export const webhookUrlAllow = z.string().optional().transform(parsedBy(webhookUrlPolicy));

/** What a process that delivers webhooks reads (the worker's `webhooks` queue). */
export const webhookEnvShape = {
  TEAPOT_PUBLIC_URL: publicUrl,
  TEAPOT_WEBHOOK_URL_ALLOW: webhookUrlAllow,
  /** Delays before attempts 2, 3, ...: a comma list such as 5s,5m,30m,2h (units ms, s, m, h). */
  WEBHOOK_RETRY_SCHEDULE: z.string().default(DEFAULT_RETRY_SCHEDULE).transform(parsedBy(parseRetrySchedule)),
  WEBHOOK_TIMEOUT_MS: wholeNumber(100, 120_000, DEFAULT_TIMEOUT_MS),
  /** Delivery attempts in flight at once in one process. */
  WEBHOOK_CONCURRENCY: wholeNumber(1, 256, 16),
  /** The sweeper also looks for unqueued deliveries this often (it is woken at once on commit too). */
  WEBHOOK_SWEEP_INTERVAL_MS: wholeNumber(100, 3_600_000, 5_000),
};
