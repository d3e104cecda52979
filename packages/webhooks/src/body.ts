import {
  WEBHOOK_BODY_VERSION,
  type WebhookBody,
  type WebhookEventType,
  type WebhookPayloadFormat,
} from '@teapot/contracts';
import { renderSlackMessage } from './slack';

export interface StoredEvent {
  id: string;
  type: WebhookEventType;
  createdAt: Date;
  data: Record<string, unknown>;
  /** API paths, e.g. `{ run: '/runs/<id>' }`. */
  links: Record<string, string>;
  endpoint: { id: string; name: string } | null;
}

/**
 * The JSON text of a delivery, with the event's API paths made absolute against `publicUrl` (where
 * users reach the API). Rendered once per delivery and stored, so every retry sends the same bytes.
 */
export function renderWebhookBody(event: StoredEvent, publicUrl: string): string {
  const base = publicUrl.replace(/\/+$/, '');
  const absolute = (path: string) => base + (path.startsWith('/') ? path : `/${path}`);
  const links: Record<string, string> = {};
  for (const [name, path] of Object.entries(event.links)) links[name] = absolute(path);
  links.event = absolute(`/webhooks/events/${event.id}`);
  if (event.endpoint) links.endpoint = absolute(`/endpoints/${event.endpoint.id}`);
  const body: WebhookBody = {
    version: WEBHOOK_BODY_VERSION,
    id: event.id,
    type: event.type,
    timestamp: event.createdAt.toISOString(),
    endpoint: event.endpoint
      ? { id: event.endpoint.id, name: event.endpoint.name, url: absolute(`/endpoints/${event.endpoint.id}`) }
      : null,
    data: event.data,
    links,
  };
  return JSON.stringify(body);
}

/** The body a subscription of this payload format is sent: the standard body, or a Slack message. */
export function renderDeliveryBody(
  event: StoredEvent,
  publicUrl: string,
  format: WebhookPayloadFormat,
): string {
  return format === 'slack'
    ? JSON.stringify(renderSlackMessage(event, publicUrl))
    : renderWebhookBody(event, publicUrl);
}
