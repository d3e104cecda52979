import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { endpointUrlPolicy } from '@teapot/webhooks';
import { measuredWindowOf } from './derive';
import { ServerMetricsSampler } from './sampler';

describe('ServerMetricsSampler', () => {
  let server: Server;
  let url: string;
  let served = 0;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      served++;
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`vllm:num_preemptions_total ${served * 2}\n`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => (served = 0));

  const policy = endpointUrlPolicy('public,loopback');

  it('scrapes once on start, every interval, once on stop, with times on the caller anchor', async () => {
    const sampler = new ServerMetricsSampler({ url, policy, intervalMs: 40 });
    await sampler.start();
    expect(served).toBe(1);
    const anchorNs = process.hrtime.bigint();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const { series, diagnostics } = await sampler.stop(anchorNs);
    const periodic = served;
    expect(periodic).toBeGreaterThanOrEqual(4);
    expect(diagnostics).toEqual({ scrapes: served, failedScrapes: 0, preemptions: (served - 1) * 2 });
    expect(series.offsetsMs[0]).toBeLessThan(0);
    expect(series.offsetsMs.every((offset, i) => i === 0 || offset > series.offsetsMs[i - 1])).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(served).toBe(periodic);
  });

  it('stops without a last scrape when abandoned', async () => {
    const sampler = new ServerMetricsSampler({ url, policy, intervalMs: 1_000 });
    await sampler.start();
    await sampler.abandon();
    expect(served).toBe(1);
  });

  it('names the failures of a server that is gone', async () => {
    const sampler = new ServerMetricsSampler({
      url: 'http://127.0.0.1:1/metrics',
      policy,
      intervalMs: 1_000,
    });
    await sampler.start();
    const { diagnostics } = await sampler.stop(process.hrtime.bigint());
    expect(diagnostics).toEqual({
      scrapes: 0,
      failedScrapes: 2,
      error: expect.stringMatching(/^metrics unavailable: ECONNREFUSED: .* \(2x\)$/),
    });
  });

  it('windows a run from its first measured request, its duration long', () => {
    const requests = [
      { warmup: true, startUs: 10 },
      { warmup: false, startUs: 5_000 },
      { warmup: false, startUs: 7_000 },
    ];
    expect(measuredWindowOf({ durationUs: 2_000_000, requests })).toEqual({ startMs: 5, endMs: 2005 });
    expect(measuredWindowOf({ durationUs: 0, requests: [] })).toBeUndefined();
  });
});
