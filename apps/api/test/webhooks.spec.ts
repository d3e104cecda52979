import { decryptSecret } from '@teapot/config';
import { created, endpointBody, startApiForFile } from './api';

const api = startApiForFile();
let endpointId: string;
const bodies: string[] = [];

beforeAll(async () => {
  endpointId = (await created(api, '/endpoints', endpointBody())).id as string;
});

async function call(method: 'get' | 'post' | 'patch' | 'delete', path: string, body?: object) {
  const request = api.authed[method](path);
  const response = await (body ? request.send(body) : request);
  bodies.push(response.text);
  return response;
}

const subscription = (overrides: Record<string, unknown> = {}) => ({
  url: 'https://hooks.example.com/teapot',
  eventTypes: ['deployment.regressed', 'run.failed'],
  ...overrides,
});

describe('webhook subscriptions', () => {
  it('show the whsec_ secret once at creation, store it encrypted, and never return it again', async () => {
    const create = await call('post', '/webhooks/subscriptions', subscription({ endpointId }));
    expect(create.status).toBe(201);
    const secret = create.body.secret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(create.body).toMatchObject({ active: true, endpointId, disabledReason: null });
    const id = create.body.id as string;

    const row = await api.prisma.webhookSubscription.findUniqueOrThrow({ where: { id } });
    expect(Buffer.from(row.secretEnc).includes(Buffer.from(secret))).toBe(false);
    expect(decryptSecret(row.secretEnc, api.env.TEAPOT_SECRET_KEY)).toBe(secret);

    const reads = [
      await call('get', `/webhooks/subscriptions/${id}`),
      await call('get', '/webhooks/subscriptions'),
      await call('patch', `/webhooks/subscriptions/${id}`, { description: 'on-call' }),
    ];
    for (const read of reads) {
      expect(read.status).toBe(200);
      expect(read.text).not.toContain(secret);
      expect(read.text).not.toContain('"secret"');
    }
    expect(api.logs()).not.toContain(secret);
  });

  it('rotate: a new secret shown once, the old one kept for the overlap', async () => {
    const { id, secret } = (await call('post', '/webhooks/subscriptions', subscription())).body as {
      id: string;
      secret: string;
    };
    const rotated = await call('post', `/webhooks/subscriptions/${id}/rotate-secret`, { overlapS: 3600 });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(secret);
    const expires = Date.parse(rotated.body.previousSecretExpiresAt as string);
    expect(expires - Date.now()).toBeGreaterThan(3500_000);
    const row = await api.prisma.webhookSubscription.findUniqueOrThrow({ where: { id } });
    expect(decryptSecret(row.previousSecretEnc!, api.env.TEAPOT_SECRET_KEY)).toBe(secret);
    expect(decryptSecret(row.secretEnc, api.env.TEAPOT_SECRET_KEY)).toBe(rotated.body.secret);
    const read = await call('get', `/webhooks/subscriptions/${id}`);
    expect(read.text).not.toContain(rotated.body.secret as string);

    const immediate = await call('post', `/webhooks/subscriptions/${id}/rotate-secret`, { overlapS: 0 });
    expect(immediate.body.previousSecretExpiresAt).toBeNull();
    const bad = await call('post', `/webhooks/subscriptions/${id}/rotate-secret`, { overlapS: 8 * 86400 });
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((d: { field: string }) => d.field)).toEqual(['overlapS']);
  });

  it.each([
    ['the AWS metadata address', 'http://169.254.169.254/latest/meta-data/'],
    ['the metadata address as one hex number', 'http://0xa9fea9fe/'],
    ['the metadata address as a decimal', 'http://2852039166/'],
    ['the metadata address inside IPv6', 'http://[::ffff:169.254.169.254]/'],
    ['the GCP metadata name', 'http://metadata.google.internal/computeMetadata/v1/'],
    ['Alibaba metadata', 'http://100.100.100.200/latest/meta-data/'],
    ['the EC2 IPv6 metadata address', 'http://[fd00:ec2::254]/'],
    ['loopback (not opened by TEAPOT_WEBHOOK_URL_ALLOW)', 'http://127.0.0.1:6379/'],
    ['localhost', 'http://localhost:5432/'],
    ['a private address', 'http://10.0.0.7/hook'],
    ['ftp', 'ftp://hooks.example.com/'],
    ['file', 'file:///etc/passwd'],
    ['credentials in the URL', 'https://user:pass@hooks.example.com/'],
    ['not a URL', 'hooks'],
    ['a 3000-character URL', `https://hooks.example.com/${'a'.repeat(3000)}`],
  ])('refuse %s as the url, naming the field', async (_what, url) => {
    const response = await call('post', '/webhooks/subscriptions', subscription({ url }));
    expect(response.status).toBe(400);
    expect(response.body.details.map((d: { field: string }) => d.field)).toEqual(['url']);
  });

  it.each([
    ['an unknown event type', ['deployment.exploded'], 'eventTypes'],
    ['no event types', [], 'eventTypes'],
    ['a repeated event type', ['ping', 'ping'], 'eventTypes'],
    ['event types as a string', 'run.failed', 'eventTypes'],
  ])('refuse %s', async (_what, eventTypes, field) => {
    const response = await call('post', '/webhooks/subscriptions', subscription({ eventTypes }));
    expect(response.status).toBe(400);
    expect(response.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it.each(['http://127.1:8460/hook', 'http://2130706433:8460/hook', 'http://0x7f000001:8460/hook'])(
    'judge %s as the loopback address it is, with the policy message',
    async (url) => {
      const response = await call('post', '/webhooks/subscriptions', subscription({ url }));
      expect(response.status).toBe(400);
      expect(response.body.details).toEqual([
        {
          field: 'url',
          problem:
            '127.0.0.1 is a loopback address; allowed only when TEAPOT_WEBHOOK_URL_ALLOW includes "loopback".',
        },
      ]);
    },
  );

  it('take a payload format (standard by default, slack on request, changeable) and refuse any other naming the field', async () => {
    const standard = await call('post', '/webhooks/subscriptions', subscription());
    expect(standard.body.format).toBe('standard');
    const slack = await call('post', '/webhooks/subscriptions', subscription({ format: 'slack' }));
    expect(slack.status).toBe(201);
    expect(slack.body.format).toBe('slack');
    const id = slack.body.id as string;
    expect((await call('get', `/webhooks/subscriptions/${id}`)).body.format).toBe('slack');
    const back = await call('patch', `/webhooks/subscriptions/${id}`, { format: 'standard' });
    expect(back.body.format).toBe('standard');
    const bad = await call('post', '/webhooks/subscriptions', subscription({ format: 'teams' }));
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([{ field: 'format', problem: 'must be one of standard, slack' }]);
  });

  it('refuse an endpoint filter naming no endpoint (404 naming endpointId) and a URL change to a refused host', async () => {
    const missing = await call(
      'post',
      '/webhooks/subscriptions',
      subscription({ endpointId: '00000000-0000-4000-8000-000000000000' }),
    );
    expect(missing.status).toBe(404);
    expect(missing.body.details.map((d: { field: string }) => d.field)).toEqual(['endpointId']);
    const { id } = (await call('post', '/webhooks/subscriptions', subscription())).body as { id: string };
    const patch = await call('patch', `/webhooks/subscriptions/${id}`, { url: 'http://169.254.169.254/' });
    expect(patch.status).toBe(400);
    expect(patch.body.details.map((d: { field: string }) => d.field)).toEqual(['url']);
  });

  it('ping: one event and one pending delivery for that subscription only; 409 when inactive; delete removes it', async () => {
    const { id } = (
      await call('post', '/webhooks/subscriptions', subscription({ eventTypes: ['run.failed'] }))
    ).body as { id: string };
    const ping = await call('post', `/webhooks/subscriptions/${id}/ping`);
    expect(ping.status).toBe(202);
    const deliveries = await call('get', `/webhooks/deliveries?eventId=${ping.body.eventId}`);
    expect(deliveries.body.items).toEqual([
      expect.objectContaining({
        id: ping.body.deliveryId,
        subscriptionId: id,
        eventType: 'ping',
        status: 'pending',
        attempts: 0,
        messageId: expect.stringMatching(/^msg_[0-9a-f]{32}$/),
      }),
    ]);
    const event = await call('get', `/webhooks/events/${ping.body.eventId}`);
    expect(event.body).toMatchObject({ type: 'ping', data: { subscriptionId: id } });
    const events = await call('get', '/webhooks/events?type=ping');
    expect(events.body.items.map((e: { id: string }) => e.id)).toContain(ping.body.eventId);

    await call('patch', `/webhooks/subscriptions/${id}`, { active: false });
    expect((await call('post', `/webhooks/subscriptions/${id}/ping`)).status).toBe(409);
    expect((await call('delete', `/webhooks/subscriptions/${id}`)).status).toBe(204);
    expect((await call('get', `/webhooks/subscriptions/${id}`)).status).toBe(404);
    expect((await call('get', `/webhooks/deliveries/${ping.body.deliveryId}`)).status).toBe(404);
  });

  it('attempts are listed in order; redelivery re-queues a finished delivery under the same webhook-id', async () => {
    const { id } = (await call('post', '/webhooks/subscriptions', subscription())).body as { id: string };
    const ping = (await call('post', `/webhooks/subscriptions/${id}/ping`)).body as { deliveryId: string };
    expect((await call('post', `/webhooks/deliveries/${ping.deliveryId}/redeliver`)).status).toBe(409);

    // What the worker records after two failed attempts and giving up.
    const started = new Date('2026-12-03T10:00:00Z');
    await api.prisma.webhookAttempt.createMany({
      data: [
        {
          deliveryId: ping.deliveryId,
          number: 1,
          startedAt: started,
          durationMs: 12.5,
          error: 'ECONNREFUSED',
        },
        {
          deliveryId: ping.deliveryId,
          number: 2,
          startedAt: new Date(started.getTime() + 5000),
          durationMs: 40,
          statusCode: 503,
          error: 'HTTP 503',
          responseBody: 'down for maintenance',
        },
      ],
    });
    await api.prisma.webhookDelivery.update({
      where: { id: ping.deliveryId },
      data: {
        status: 'failed',
        attempts: 2,
        lastStatusCode: 503,
        finishedAt: new Date(),
        queuedAt: new Date(),
      },
    });
    const attempts = await call('get', `/webhooks/deliveries/${ping.deliveryId}/attempts`);
    expect(
      attempts.body.items.map((a: { number: number; statusCode: number | null }) => [a.number, a.statusCode]),
    ).toEqual([
      [1, null],
      [2, 503],
    ]);
    expect(attempts.body.items[1].responseBody).toBe('down for maintenance');

    const before = await call('get', `/webhooks/deliveries/${ping.deliveryId}`);
    const redeliver = await call('post', `/webhooks/deliveries/${ping.deliveryId}/redeliver`);
    expect(redeliver.status).toBe(202);
    expect(redeliver.body).toMatchObject({
      status: 'pending',
      attempts: 2,
      messageId: before.body.messageId,
      finishedAt: null,
    });
    const row = await api.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: ping.deliveryId } });
    expect(row.queuedAt).toBeNull();
    const failedOnly = await call('get', `/webhooks/deliveries?subscriptionId=${id}&status=failed`);
    expect(failedOnly.body.items).toEqual([]);
  });

  it('answer 404 for ids that name nothing and 400 for bad filters', async () => {
    const none = '00000000-0000-4000-8000-000000000000';
    for (const path of [
      `/webhooks/subscriptions/${none}`,
      `/webhooks/events/${none}`,
      `/webhooks/deliveries/${none}`,
      `/webhooks/deliveries/${none}/attempts`,
    ]) {
      expect((await call('get', path)).status).toBe(404);
    }
    const badType = await call('get', '/webhooks/events?type=run.exploded');
    expect(badType.status).toBe(400);
    expect(badType.body.details.map((d: { field: string }) => d.field)).toEqual(['type']);
    const badStatus = await call('get', '/webhooks/deliveries?status=lost');
    expect(badStatus.body.details.map((d: { field: string }) => d.field)).toEqual(['status']);
  });
});
