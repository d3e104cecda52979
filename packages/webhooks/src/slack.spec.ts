import type { WebhookEventType } from '@teapot/contracts';
import type { StoredEvent } from './body';
import { renderDeliveryBody } from './body';
import { SLACK_LISTS, renderSlackMessage } from './slack';
import { SLACK_LIMITS, type SlackBlock, type SlackMessage } from './slack-blocks';

const PUBLIC_URL = 'https://teapot.example.com/';
const ENDPOINT = { id: '11111111-1111-4111-8111-111111111111', name: 'llama-8b-h100-fp8' };

/** Every documented Block Kit limit the message could cross, as readable problems (none: valid). */
function limitProblems(message: SlackMessage): string[] {
  const problems: string[] = [];
  const over = (what: string, length: number, max: number) => {
    if (length > max) problems.push(`${what}: ${length} > ${max}`);
  };
  const chars = (text: string) => [...text].length;
  over('blocks', message.blocks.length, SLACK_LIMITS.blocks);
  over('message', JSON.stringify(message.blocks).length, SLACK_LIMITS.messageChars);
  message.blocks.forEach((block: SlackBlock, i) => {
    if (block.type === 'header') {
      over(`header ${i}`, chars(block.text.text), SLACK_LIMITS.headerText);
      if (block.text.type !== 'plain_text') problems.push(`header ${i} is not plain_text`);
    }
    if (block.type === 'section') {
      if (!block.text && !block.fields) problems.push(`section ${i} has neither text nor fields`);
      if (block.text) over(`section ${i}`, chars(block.text.text), SLACK_LIMITS.sectionText);
      over(`section ${i} fields`, block.fields?.length ?? 0, SLACK_LIMITS.sectionFields);
      for (const field of block.fields ?? [])
        over(`section ${i} field`, chars(field.text), SLACK_LIMITS.fieldText);
    }
    if (block.type === 'context') {
      over(`context ${i}`, block.elements.length, SLACK_LIMITS.contextElements);
      for (const element of block.elements)
        over(`context ${i} text`, chars(element.text), SLACK_LIMITS.contextText);
    }
    if (block.type === 'actions') {
      over(`actions ${i}`, block.elements.length, SLACK_LIMITS.actionsElements);
      for (const button of block.elements) {
        over(`button ${i} text`, chars(button.text.text), SLACK_LIMITS.buttonText);
        over(`button ${i} url`, button.url.length, SLACK_LIMITS.buttonUrl);
      }
    }
  });
  return problems;
}

function row(metric: string, statistic: string, delta: number, verdict = 'regressed') {
  return {
    metric,
    statistic,
    unit: 'ms',
    baseline: 6.4,
    candidate: 6.4 * (1 + delta),
    delta,
    relative: true,
    interval: [delta - 0.04, delta + 0.04],
    verdict,
  };
}

function deploymentEvent(
  profiles: number,
  rowsPerProfile: number,
  label = 'moved to FP16 weights',
): StoredEvent {
  return {
    id: '22222222-2222-4222-8222-222222222222',
    type: 'deployment.regressed',
    createdAt: new Date('2026-12-05T18:00:00Z'),
    endpoint: ENDPOINT,
    links: { deployment: '/deployments/d1' },
    data: {
      deployment: { id: 'd1', label, version: 'vllm-0.10.1-fp16', effectiveAt: '2026-12-05T17:59:00Z' },
      verdict: 'regressed',
      threshold: 0.1,
      profiles: Array.from({ length: profiles }, (_, p) => ({
        profileId: `p${p}`,
        profileName: `profile ${p}`,
        verdict: 'regressed',
        reason: null,
        decidedBy: ['tpot.p50'],
        baselineRunIds: ['b1', 'b2'],
        candidateRunIds: ['c1', 'c2'],
        metrics: Array.from({ length: rowsPerProfile }, (_, r) => row(`metric${r}`, 'p50', 0.89)),
      })),
    },
  };
}

describe('renderSlackMessage', () => {
  it('renders a regressed deployment: verdict, endpoint, judged rows with change and interval, links', () => {
    const message = renderSlackMessage(deploymentEvent(1, 2), PUBLIC_URL);
    expect(limitProblems(message)).toEqual([]);
    expect(message.text).toBe('🔴 Deployment regressed: moved to FP16 weights on llama-8b-h100-fp8');
    expect(message.blocks[0]).toEqual({
      type: 'header',
      text: { type: 'plain_text', text: message.text, emoji: true },
    });
    const texts = JSON.stringify(message.blocks);
    expect(texts).toContain('*Verdict*\\n🔴 regressed');
    expect(texts).toContain('*Endpoint*\\nllama-8b-h100-fp8');
    expect(texts).toContain('*Threshold*\\n±10.0%');
    expect(texts).toContain('• `metric0 p50 (ms)` 6.4 -> 12.1 ms *+89.0%* [+85.0%, +93.0%] regressed');
    const actions = message.blocks.find((b) => b.type === 'actions');
    expect(actions).toMatchObject({
      elements: [
        { url: `https://teapot.example.com/#/endpoints/${ENDPOINT.id}` },
        {
          url: 'https://teapot.example.com/#/compare?baseline.runIds=b1%2Cb2&candidate.runIds=c1%2Cc2&includeSaturated=true',
        },
      ],
    });
    expect(message.blocks[message.blocks.length - 1].type).toBe('context');
  });

  it('says under each profile the diagnostics that explain its verdict', () => {
    const event = deploymentEvent(1, 2);
    const [profile] = event.data.profiles as Array<Record<string, unknown>>;
    profile.explanations = ['preemptions 0 -> 37 per run', 'KV-cache usage (max) 62% -> 99%'];
    const message = renderSlackMessage(event, PUBLIC_URL);
    expect(limitProblems(message)).toEqual([]);
    expect(JSON.stringify(message.blocks)).toContain(
      '_Why:_ preemptions 0 -&gt; 37 per run; KV-cache usage (max) 62% -&gt; 99%',
    );
  });

  it('keeps a deployment with many profiles and rows within every limit, counting what it leaves out', () => {
    const message = renderSlackMessage(deploymentEvent(30, 200, 'x'.repeat(300)), PUBLIC_URL);
    expect(limitProblems(message)).toEqual([]);
    const texts = JSON.stringify(message.blocks);
    expect(texts).toContain(`+${200 - SLACK_LISTS.rowsPerProfile} more`);
    expect(texts).toContain(`+${30 - SLACK_LISTS.profiles} more profiles`);
    // the links and the footer survive the cut
    expect(message.blocks.some((b) => b.type === 'actions')).toBe(true);
    expect((message.blocks[0] as { text: { text: string } }).text.text.endsWith('…')).toBe(true);
  });

  it('cuts a profile whose rows exceed a section by length, not only by count', () => {
    const event = deploymentEvent(1, 10);
    const profile = (event.data.profiles as Array<{ metrics: Array<{ metric: string }> }>)[0];
    for (const metric of profile.metrics) metric.metric = 'm'.repeat(400);
    const message = renderSlackMessage(event, PUBLIC_URL);
    expect(limitProblems(message)).toEqual([]);
    expect(JSON.stringify(message.blocks)).toMatch(/\+\d more/);
  });

  it('renders a detected change point with the series that moved and what it coincides with', () => {
    const message = renderSlackMessage(
      {
        id: 'e2',
        type: 'changepoint.detected',
        createdAt: new Date('2026-12-05T18:00:00Z'),
        endpoint: ENDPOINT,
        links: {},
        data: {
          metric: 'itl',
          statistic: 'p99',
          magnitude: 0.5,
          at: '2026-12-05T17:00:00Z',
          runId: 'r9',
          changePoints: [
            {
              metric: 'itl',
              statistic: 'p99',
              unit: 'ms',
              kind: 'step',
              meanBefore: 6,
              meanAfter: 9,
              magnitude: 0.5,
              pValue: 0.0001,
            },
          ],
          attribution: { summary: 'no recorded change: unexplained' },
        },
      },
      PUBLIC_URL,
    );
    expect(limitProblems(message)).toEqual([]);
    expect(message.text).toBe('📈 Change point detected on llama-8b-h100-fp8: itl p99 +50.0%');
    const texts = JSON.stringify(message.blocks);
    expect(texts).toContain('• `itl p99` 6 -> 9 ms *+50.0%* (step, p < 0.001)');
    expect(texts).toContain('*Why*: no recorded change: unexplained');
    expect(texts).toContain('https://teapot.example.com/#/runs/r9');
  });

  it.each<WebhookEventType>(['changepoint.retracted', 'run.failed', 'ping', 'deployment.verified'])(
    'renders %s from an empty data object within the limits',
    (type) => {
      const message = renderSlackMessage(
        { id: 'e3', type, createdAt: new Date(0), endpoint: null, links: {}, data: {} },
        PUBLIC_URL,
      );
      expect(limitProblems(message)).toEqual([]);
      expect(message.text.length).toBeGreaterThan(0);
    },
  );

  it('escapes what Slack reads as markup in names users chose', () => {
    const event = deploymentEvent(1, 1, '<!channel> & co');
    const texts = JSON.stringify(renderSlackMessage(event, PUBLIC_URL).blocks.slice(1));
    expect(texts).toContain('&lt;!channel&gt; &amp; co');
    expect(texts).not.toContain('<!channel>');
  });

  it('is what a slack subscription is sent; a standard one still gets the signed body', () => {
    const event = deploymentEvent(1, 1);
    expect(JSON.parse(renderDeliveryBody(event, PUBLIC_URL, 'slack'))).toEqual(
      renderSlackMessage(event, PUBLIC_URL),
    );
    expect(JSON.parse(renderDeliveryBody(event, PUBLIC_URL, 'standard'))).toMatchObject({
      version: 1,
      type: 'deployment.regressed',
    });
  });
});
