import { diagnosticRows, formatDiagnostic } from './diagnostics';

describe('diagnosticRows', () => {
  it("lists the figures a run's diagnostics hold, with the catalogue's labels and units", () => {
    const rows = diagnosticRows('server', {
      scrapes: 5,
      failedScrapes: 0,
      preemptions: 37,
      kvCacheUsageMax: 0.991,
    });
    expect(rows).toEqual([
      { metric: 'preemptions', label: 'preemptions', value: '37 preemptions' },
      { metric: 'kv_cache_usage_max', label: 'KV-cache usage (max)', value: '99.1%' },
    ]);
    expect(diagnosticRows('client', { itlP99DuringPrefillMs: 48.25, longGaps: 0 })).toEqual([
      { metric: 'long_gaps', label: 'long gaps', value: '0 gaps' },
      { metric: 'itl_p99_during_prefill_ms', label: 'ITL P99 during prefills', value: '48.3 ms' },
    ]);
  });

  it('shows nothing for a run without diagnostics, and never a missing figure as 0', () => {
    expect(diagnosticRows('server', null)).toEqual([]);
    expect(
      diagnosticRows('server', { scrapes: 0, failedScrapes: 3, error: 'metrics unavailable: HTTP 500' }),
    ).toEqual([]);
    expect(formatDiagnostic(0.625, 'fraction')).toBe('62.5%');
  });
});
