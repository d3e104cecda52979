import type { MetricVerification, ProfileVerification } from '@teapot/contracts';
import type { Deployment } from './teapot-api';
import { renderMarkdown, renderVerdict, type ReportContext } from './verdict-report';

const CONTEXT: ReportContext = {
  endpointName: 'llama | fp8',
  apiUrl: 'http://teapot:3000',
  dashboardUrl: 'https://dash.example.com',
};

function row(metric: string, statistic: string, over: Partial<MetricVerification> = {}): MetricVerification {
  return {
    metric,
    statistic,
    unit: 'ms',
    baseline: 3.38,
    candidate: 6.43,
    delta: 0.905,
    relative: true,
    interval: [0.869, 0.961],
    equivalenceInterval: [0.87, 0.95],
    threshold: 0.1,
    verdict: 'regressed',
    judged: true,
    ...over,
  };
}

/** A regressed single-load profile: tpot p50 judged and decisive, e2e p90 shown by the API only. */
const REGRESSED_PROFILE: ProfileVerification = {
  ...{ profileId: 'p1', profileName: 'chat', verdict: 'regressed', reason: null },
  ...{ baselineRunIds: ['b1', 'b2'], candidateRunIds: ['c1'], decidedBy: ['tpot.p50'] },
  metrics: [row('tpot', 'p50'), row('e2e', 'p90', { judged: false, verdict: 'improved' })],
};

const profile = (over: Partial<ProfileVerification>): ProfileVerification => ({
  ...REGRESSED_PROFILE,
  ...over,
});

function deployment(
  profiles: ProfileVerification[],
  verdict: Deployment['verdict'] = 'regressed',
): Deployment {
  return {
    id: 'd1',
    endpointId: 'e1',
    label: 'FP16 *weights* | v2',
    version: 'abc',
    effectiveAt: '2026-12-05T18:00:00.000Z',
    verdict,
    verification:
      verdict === 'pending'
        ? null
        : {
            verdict,
            threshold: 0.1,
            confidence: 0.99286,
            equivalenceConfidence: 0.9,
            method: {
              judgedRows: [],
              changeOnlyRows: [],
              familyAlpha: 0.05,
              correction: 'bonferroni',
              minimumEffect: 0.1,
            },
            profiles,
          },
    verifiedAt: null,
    settings: { includeSaturated: false },
    runs: [],
    sweeps: [],
  };
}

const capacityProfile = profile({
  profileId: 'p2',
  profileName: 'capacity at SLO',
  verdict: 'improved',
  baselineRunIds: [],
  candidateRunIds: [],
  baselineSweepIds: ['s1', 's2'],
  candidateSweepIds: ['s3'],
  decidedBy: ['capacity.mean'],
  metrics: [
    row('capacity', 'mean', {
      unit: 'req/s',
      baseline: 41,
      candidate: 52,
      delta: 0.268,
      interval: [0.2, 0.33],
      verdict: 'improved',
    }),
    row('cost_per_mtok', 'mean', {
      unit: 'USD',
      baseline: 2.1,
      candidate: 1.7,
      delta: -0.19,
      interval: null,
      judged: false,
      verdict: 'improved',
    }),
  ],
});

describe('renderVerdict', () => {
  it('shows the judged rows of a run profile and every row of a capacity-search profile, deciding rows marked', () => {
    const text = renderVerdict(deployment([profile({}), capacityProfile]), CONTEXT);
    expect(text).toMatch(
      /^deployment d1 "FP16 \*weights\* \| v2" \(version abc\) on llama \| fp8: REGRESSED$/m,
    );
    expect(text).toContain('judged at ±10.0%, change intervals at 99.3% confidence');
    expect(text).toMatch(
      /^ {2}tpot p50 \(ms\) +3\.38 +6\.43 +\+90\.5% +\[\+86\.9%, \+96\.1%\] +regressed \*$/m,
    );
    expect(text).not.toContain('e2e p90');
    expect(text).toMatch(/^profile capacity at SLO: improved \(decided by capacity\.mean\)$/m);
    expect(text).toMatch(/^ {2}capacity \(req\/s\) +41 +52 +\+26\.8% +\[\+20\.0%, \+33\.0%\] +improved \*$/m);
    expect(text).toMatch(/^ {2}cost_per_mtok mean \(USD\) +2\.1 +1\.7 +-19\.0% +- +improved$/m);
    expect(text).toContain('https://dash.example.com/#/endpoints/e1');
    expect(text).toContain(
      'https://dash.example.com/#/compare?baseline.runIds=b1%2Cb2&candidate.runIds=c1\n',
    );
    expect(text).toContain('http://teapot:3000/deployments/d1');
  });

  it('prints the diagnostics that explain a profile, in the terminal and in the PR comment', () => {
    const change = {
      metric: 'preemptions',
      label: 'preemptions',
      unit: 'preemptions',
      baseline: 0,
      candidate: 37,
    } as const;
    const explained = profile({
      explanations: [
        {
          ...change,
          runs: { baseline: 5, candidate: 3 },
          basis: 'rank-test',
          pValue: 0.04,
          text: 'preemptions 0 -> 37 per run',
        },
      ],
    });
    expect(renderVerdict(deployment([explained]), CONTEXT)).toContain(
      'profile chat: regressed (decided by tpot.p50); why: preemptions 0 -> 37 per run',
    );
    expect(renderMarkdown(deployment([explained]), CONTEXT)).toContain(
      '**Why** (chat): preemptions 0 -\\> 37 per run',
    );
  });

  it('says why the wait ended when there is no verdict yet', () => {
    const text = renderVerdict(deployment([], 'pending'), {
      ...CONTEXT,
      unfinished: 'no verdict within 60 s',
    });
    expect(text).toMatch(/: pending: no verdict within 60 s\n/);
  });
});

describe('renderMarkdown', () => {
  it('is a PR comment: a badge line, the judged rows with change and interval, escaped names, the links', () => {
    const text = renderMarkdown(deployment([profile({}), capacityProfile]), CONTEXT);
    expect(text.split('\n')[0]).toBe('### 🔴 teapot: deployment **regressed**');
    expect(text).toContain('**FP16 \\*weights\\* \\| v2** (`abc`) on **llama \\| fp8**');
    expect(text).toContain(
      '| chat | **tpot p50 (ms)** | 3.38 | 6.43 | **+90.5%** | [+86.9%, +96.1%] | 🔴 regressed |',
    );
    expect(text).toContain(
      '| capacity at SLO | **capacity (req/s)** | 41 | 52 | **+26.8%** | [+20.0%, +33.0%] | 🚀 improved |',
    );
    expect(text).toContain('[endpoint and its deployments](https://dash.example.com/#/endpoints/e1)');
    expect(text).toContain(
      '[comparison: chat](https://dash.example.com/#/compare?baseline.runIds=b1%2Cb2&candidate.runIds=c1)',
    );
    // every table line has the header's seven cells
    for (const line of text.split('\n').filter((l) => l.startsWith('| ')))
      expect(line.split(/(?<!\\)\|/).length - 2).toBe(7);
  });

  it('says a deployment without a baseline is not judged, and why', () => {
    const text = renderMarkdown(
      deployment(
        [profile({ verdict: 'no_baseline', reason: 'no run before it', metrics: [], decidedBy: [] })],
        'no_baseline',
      ),
      CONTEXT,
    );
    expect(text.split('\n')[0]).toBe('### ⚪ teapot: deployment **no baseline**');
    expect(text).toContain('_chat: no run before it_');
    expect(text).not.toContain('| profile |');
  });
});
