import type { RunDiagnostics } from '@teapot/db';
import { diagnosticChanges } from './diagnostic-changes';

const server = (figures: Record<string, number>): RunDiagnostics => ({
  client: null,
  server: { scrapes: 10, failedScrapes: 0, ...figures },
});

describe('diagnosticChanges', () => {
  it('explains a change the rank test finds, with the means of the runs that have the value', () => {
    const baseline = [0, 0, 0, 0, 0].map((preemptions, i) =>
      server({ preemptions, kvCacheUsageMax: 0.6 + i * 0.01 }),
    );
    const candidate = [35, 37, 39].map((preemptions, i) =>
      server({ preemptions, kvCacheUsageMax: 0.98 + i * 0.01 }),
    );
    const changes = diagnosticChanges(baseline, candidate);
    expect(changes.map((c) => c.text)).toEqual([
      'preemptions 0 -> 37 per run',
      'KV-cache usage (max) 62% -> 99%',
    ]);
    expect(changes[0]).toMatchObject({ basis: 'rank-test', runs: { baseline: 5, candidate: 3 } });
    expect(changes[0].pValue).toBeLessThanOrEqual(0.05);
  });

  it('falls back to complete separation when the sides are too small for the test to decide', () => {
    const changes = diagnosticChanges(
      [server({ specDecodeAcceptanceRate: 0.7 }), server({ specDecodeAcceptanceRate: 0.72 })],
      [server({ specDecodeAcceptanceRate: 0.38 }), server({ specDecodeAcceptanceRate: 0.39 })],
    );
    expect(changes).toMatchObject([{ metric: 'spec_decode_acceptance', basis: 'separation' }]);
    expect(changes[0].text).toBe('spec-decode acceptance 71% -> 39%');
    const overlapping = diagnosticChanges(
      [server({ specDecodeAcceptanceRate: 0.7 }), server({ specDecodeAcceptanceRate: 0.3 })],
      [server({ specDecodeAcceptanceRate: 0.38 }), server({ specDecodeAcceptanceRate: 0.2 })],
    );
    expect(overlapping).toEqual([]);
  });

  it('says ITL during prefills as a factor, and leaves out a change below the practical size', () => {
    const client = (itlP99DuringPrefillMs: number, lateTokenShare: number): RunDiagnostics => ({
      client: { itlP99DuringPrefillMs, lateTokenShare },
      server: null,
    });
    const baseline = [20, 21, 19, 20, 20].map((ms) => client(ms, 0.1));
    const candidate = [80, 82, 78, 80].map((ms) => client(ms, 0.11));
    expect(diagnosticChanges(baseline, candidate).map((c) => c.text)).toEqual([
      'ITL P99 during prefills 20 -> 80 ms (x4.0)',
    ]);
  });

  it('compares nothing absent on a side, and never counts a run without the value as zero', () => {
    const scraped = [1, 2, 3, 4, 5].map(() => server({ preemptions: 40 }));
    const unscraped: RunDiagnostics[] = [1, 2, 3].map(() => ({ client: null, server: null }));
    expect(diagnosticChanges(unscraped, scraped)).toEqual([]);
    const mixed = [...unscraped, ...[1, 2, 3, 4, 5].map(() => server({ preemptions: 40 }))];
    expect(diagnosticChanges(mixed, scraped)).toEqual([]);
  });
});
