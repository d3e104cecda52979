import { createServer, get, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { addressScope } from './address';
import {
  checkUrl,
  endpointUrlPolicy,
  guardedLookup,
  parseUrlPolicy,
  UrlPolicyError,
  webhookUrlPolicy,
} from './url-policy';

const everything = parseUrlPolicy('public,private,loopback', 'TEST_ALLOW', 'public');
const publicOnly = webhookUrlPolicy();

function refusal(url: string, policy = everything): string | null {
  try {
    checkUrl(url, policy);
    return null;
  } catch (error) {
    if (error instanceof UrlPolicyError) return error.reason;
    throw error;
  }
}

describe('addressScope', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['169.254.169.254', 'link-local'],
    ['169.254.0.1', 'link-local'],
    ['100.100.100.200', 'metadata'],
    ['100.64.0.1', 'private'],
    ['10.1.2.3', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.0.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['fec0::1', 'link-local'],
    ['fd00:ec2::254', 'metadata'],
    ['fd00:ec2::253', 'private'],
    ['fc00::1', 'private'],
    ['2001:4860:4860::8888', 'public'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::169.254.169.254', 'link-local'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['2002:a9fe:a9fe::1', 'link-local'],
    ['::ffff:8.8.8.8', 'public'],
  ])('%s is %s', (address, scope) => {
    expect(addressScope(address)).toBe(scope);
  });
});

describe('checkUrl', () => {
  it.each([
    'http://169.254.169.254/latest/meta-data/',
    'http://0xa9fea9fe/',
    'http://0xA9.0xFE.0xA9.0xFE/',
    'http://2852039166/',
    'http://0251.0376.0251.0376/',
    'http://169.254.43518/',
    'http://169.16689662/',
    'http://[::ffff:169.254.169.254]/',
    'http://[::ffff:a9fe:a9fe]/',
    'http://[fe80::1]/',
    'http://[fd00:ec2::254]/',
    'http://100.100.100.200/',
    'http://metadata.google.internal/computeMetadata/v1/',
    'http://METADATA.GOOGLE.INTERNAL./',
    'http://0.0.0.0:8000/',
  ])('refuses %s even when private and loopback are allowed', (url) => {
    expect(refusal(url)).not.toBeNull();
  });

  it('refuses other schemes and non-URLs', () => {
    for (const url of [
      'ftp://example.com/',
      'file:///etc/passwd',
      'gopher://x/',
      'javascript:alert(1)',
      'x',
    ]) {
      expect(refusal(url)).toBe('scheme');
    }
  });

  it('allows loopback and private ranges only when the policy says so', () => {
    for (const url of [
      'http://127.0.0.1:8000/v1',
      'http://[::1]/',
      'http://localhost:3000/',
      'http://2130706433/',
    ]) {
      expect(refusal(url, publicOnly)).toBe('loopback');
      expect(refusal(url, endpointUrlPolicy())).toBe('loopback');
      expect(refusal(url, everything)).toBeNull();
    }
    for (const url of ['http://10.0.0.5:8000/v1', 'https://192.168.1.20/', 'http://[fd12::1]/']) {
      expect(refusal(url, publicOnly)).toBe('private');
      expect(refusal(url, endpointUrlPolicy())).toBeNull();
    }
    expect(refusal('https://api.example.com/v1', publicOnly)).toBeNull();
  });

  it.each([
    'http://127.1:8460/v1',
    'http://2130706433:8460/v1',
    'http://0x7f000001:8460/v1',
    'http://0177.0.0.1:8460/v1',
  ])("judges %s as the loopback address it is, with the policy's message", (url) => {
    expect(() => checkUrl(url, endpointUrlPolicy())).toThrow(
      '127.0.0.1 is a loopback address; allowed only when TEAPOT_ENDPOINT_URL_ALLOW includes "loopback".',
    );
    expect(checkUrl(url, everything).hostname).toBe('127.0.0.1');
  });

  it('refuses credentials in the URL', () => {
    expect(refusal('https://user:pass@hooks.example.com/')).toBe('credentials');
    expect(refusal('https://user@hooks.example.com/')).toBe('credentials');
  });

  it('names the setting that opens a range', () => {
    expect(() => checkUrl('http://10.0.0.5/', publicOnly)).toThrow(
      '10.0.0.5 is a private address; allowed only when TEAPOT_WEBHOOK_URL_ALLOW includes "private".',
    );
  });
});

describe('parseUrlPolicy', () => {
  it('defaults endpoints to public + private and webhooks to public', () => {
    expect([...endpointUrlPolicy().allow]).toEqual(['private']);
    expect([...webhookUrlPolicy().allow]).toEqual([]);
    expect([...webhookUrlPolicy(' Loopback , private ').allow].sort()).toEqual(['loopback', 'private']);
  });

  it('refuses an unknown word, naming it and the setting', () => {
    expect(() => webhookUrlPolicy('public,link-local')).toThrow(
      'TEAPOT_WEBHOOK_URL_ALLOW: "link-local" is not one of public, private, loopback.',
    );
  });
});

describe('guardedLookup at connect time', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  function fetchThrough(host: string, lookup: ReturnType<typeof guardedLookup>): Promise<string> {
    return new Promise((resolve, reject) => {
      get({ host, port, path: '/', lookup, agent: false }, (res) => {
        res.setEncoding('utf8');
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve(body));
      }).on('error', reject);
    });
  }

  it('connects to localhost when loopback is allowed and refuses it otherwise', async () => {
    await expect(fetchThrough('localhost', guardedLookup(everything))).resolves.toBe('ok');
    await expect(fetchThrough('localhost', guardedLookup(publicOnly))).rejects.toMatchObject({
      code: 'EURLPOLICY',
      message: expect.stringMatching(/^localhost \((127\.0\.0\.1|::1)\) is a loopback address/),
    });
  });

  it('refuses a name that re-resolves to the metadata address after passing the text check', async () => {
    // A rebinding resolver: the name looks harmless as text and answers with a link-local address.
    const answers = ['127.0.0.1', '169.254.169.254'];
    const rebinding: Parameters<typeof guardedLookup>[1] = (_host, _options, callback) =>
      callback(null, [{ address: answers.shift() ?? '169.254.169.254', family: 4 }]);
    const lookup = guardedLookup(everything, rebinding);
    expect(checkUrl('http://rebind.example/', everything).hostname).toBe('rebind.example');
    await expect(fetchThrough('rebind.example', lookup)).resolves.toBe('ok');
    await expect(fetchThrough('rebind.example', lookup)).rejects.toMatchObject({
      code: 'EURLPOLICY',
      message: 'rebind.example (169.254.169.254) is a link-local address; teapot never connects to one.',
    });
  });

  it('refuses when any of several resolved addresses is refused', async () => {
    const mixed: Parameters<typeof guardedLookup>[1] = (_host, _options, callback) =>
      callback(null, [
        { address: '127.0.0.1', family: 4 },
        { address: 'fd00:ec2::254', family: 6 },
      ]);
    await expect(fetchThrough('mixed.example', guardedLookup(everything, mixed))).rejects.toMatchObject({
      code: 'EURLPOLICY',
    });
  });
});
