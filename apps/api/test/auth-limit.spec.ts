import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startApiForFile } from './api';

const api = startApiForFile({ TEAPOT_AUTH_FAILURES_PER_MINUTE: '5' });

/** GET `path` from a chosen loopback source address (127.0.0.0/8 all reach the API). */
function getFrom(
  source: string,
  path: string,
  key: string,
): Promise<{ status: number; retryAfter?: string }> {
  const { port } = api.app.getHttpServer().address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: '127.0.0.1', port, path, localAddress: source, headers: { authorization: `Bearer ${key}` } },
      (response) => {
        response.resume();
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            retryAfter: response.headers['retry-after'],
          }),
        );
      },
    );
    request.on('error', reject);
    request.end();
  });
}

describe('wrong API keys per client address', () => {
  it('answers 429 with Retry-After once an address has sent too many, before checking the key', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 200; i++)
      statuses.push((await getFrom('127.0.0.2', '/endpoints', `tpk_guess_${i}`)).status);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(new Set(statuses.slice(5))).toEqual(new Set([429]));
    const limited = await getFrom('127.0.0.2', '/endpoints', api.env.TEAPOT_API_KEY);
    expect(limited.status).toBe(429);
    expect(Number(limited.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(limited.retryAfter)).toBeLessThanOrEqual(12);
  });

  it('never slows or refuses a valid key from another address, nor counts valid keys as failures', async () => {
    for (let i = 0; i < 20; i++) {
      await getFrom('127.0.0.3', '/endpoints', `tpk_guess_${i}`);
    }
    const results = [];
    for (let i = 0; i < 20; i++)
      results.push(await getFrom('127.0.0.4', '/endpoints', api.env.TEAPOT_API_KEY));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
  });
});
