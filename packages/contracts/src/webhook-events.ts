/**
 * Every event type a webhook subscription can ask for. `ping` is what `POST
 * /webhooks/subscriptions/{id}/ping` sends; the others are written by what caused them, in the
 * same transaction (`recordEvent` in @teapot/db).
 */
export const WEBHOOK_EVENT_TYPES = [
  'deployment.verified',
  'deployment.regressed',
  'changepoint.detected',
  'changepoint.updated',
  'changepoint.retracted',
  'run.failed',
  'ping',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

const EVENT_TYPES: ReadonlySet<string> = new Set(WEBHOOK_EVENT_TYPES);

export function isWebhookEventType(value: unknown): value is WebhookEventType {
  return typeof value === 'string' && EVENT_TYPES.has(value);
}

/**
 * The version of the delivered JSON body (`version` field). A change that removes or renames a
 * field bumps it; adding a field does not.
 */
export const WEBHOOK_BODY_VERSION = 1;

/**
 * The JSON body of every delivery. `data` is the event's own object (see the README of
 * @teapot/webhooks for each type); `links` are absolute URLs of the API resources it is about.
 */
export interface WebhookBody {
  version: typeof WEBHOOK_BODY_VERSION;
  /** The event id (the same in every delivery of the event, to every subscription). */
  id: string;
  type: WebhookEventType;
  /** When the event happened, ISO 8601 UTC. */
  timestamp: string;
  /** The endpoint the event is about; null for events about no endpoint (a ping). */
  endpoint: { id: string; name: string; url: string } | null;
  data: Record<string, unknown>;
  links: Record<string, string>;
}

/**
 * What a subscription's deliveries carry: `standard`, the signed body above; `slack`, a Slack
 * incoming-webhook message (Block Kit) rendered from the same event, so a channel needs no glue.
 */
export const WEBHOOK_PAYLOAD_FORMATS = ['standard', 'slack'] as const;
export type WebhookPayloadFormat = (typeof WEBHOOK_PAYLOAD_FORMATS)[number];
