import { renderDeploymentWebhook, renderUnannouncedVerdict } from './deployment-report';
import type { ReceivedWebhook } from './webhook-receiver';

describe('renderDeploymentWebhook', () => {
  const body = {
    version: 1,
    id: 'event-1',
    type: 'deployment.regressed',
    timestamp: '2026-12-03T08:00:00.000Z',
    endpoint: { id: 'e-1', name: 'llama-8b-h100-fp8', url: 'http://127.0.0.1:3000/endpoints/e-1' },
    links: {},
    data: {
      deployment: { id: 'd-1', label: 'moved to FP16', version: 'v2' },
      verdict: 'regressed',
      confidence: 1 - 0.05 / 7,
      profiles: [
        {
          profileName: 'chat',
          baselineRuns: 3,
          candidateRuns: 3,
          decidedBy: ['tpot.p50'],
          metrics: [
            {
              metric: 'tpot',
              statistic: 'p50',
              unit: 'ms',
              baseline: 3.44,
              candidate: 6.43,
              delta: 0.869,
              relative: true,
              interval: [0.836, 0.887],
              verdict: 'regressed',
            },
            {
              metric: 'error_rate',
              statistic: 'mean',
              unit: 'fraction',
              baseline: 0,
              candidate: 0,
              delta: 0,
              relative: false,
              interval: [0, 0],
              verdict: 'unchanged',
            },
          ],
        },
      ],
    },
  } as const;
  const received = (
    delivery: Pick<ReceivedWebhook, 'id' | 'signature' | 'signatureOk' | 'error'>,
  ): ReceivedWebhook => ({ ...delivery, receivedAt: new Date(), body: body as never });

  it('shows the id, whether the signature verified, and the judged rows with the deciding ones marked', () => {
    const text = renderDeploymentWebhook(received({ id: 'msg_1', signature: 'v1,abc', signatureOk: true }));
    expect(text).toContain('  webhook-id   msg_1\n');
    expect(text).toContain('  signature    OK (verified');
    expect(text).toContain('  deployment   moved to FP16 (v2), d-1: regressed\n');
    expect(text).toMatch(/99\.3% interval/);
    expect(text).toMatch(
      /^ {4}\* P50 TPOT +ms +3\.44 -> 6\.43 +\+86\.9% +\[\+83\.6%, \+88\.7%\] +regressed$/m,
    );
    expect(text).toMatch(
      /^ {6}error rate +fraction +0\.000 -> 0\.000 +0\.000 +\[0\.000, 0\.000\] +unchanged$/m,
    );
  });

  it('says when the signature did not verify', () => {
    const text = renderDeploymentWebhook(
      received({
        id: 'msg_2',
        signature: 'v1,forged',
        signatureOk: false,
        error: 'No v1 signature in webhook-signature matches the secret.',
      }),
    );
    expect(text).toContain(
      '  signature    NOT VERIFIED: No v1 signature in webhook-signature matches the secret.',
    );
  });
});

describe('renderUnannouncedVerdict', () => {
  it('reports an inconclusive verdict with where to read why', () => {
    const text = renderUnannouncedVerdict({ id: 'd1', verdict: 'inconclusive' });
    expect(text).toContain('The deployment d1 was inconclusive, which announces no webhook');
    expect(text).toContain('GET /deployments/d1 says why.');
  });
});
