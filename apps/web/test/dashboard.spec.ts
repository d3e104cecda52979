import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import {
  ARTIFACTS,
  collectPageErrors,
  hexToRgb,
  launchChromium,
  pixelColumns,
  seriesPixels,
} from './browser';
import { SEEDED_SLO_LIMIT_MS } from './seed-sweeps';
import { type DashboardWorld, startDashboardWorld, WEB_DIST } from './world';

const ITL_POINTS = hexToRgb('#1c7ed6');
const SPARKLINE = hexToRgb('#e8590c');
const FIRST_SERIES = hexToRgb('#e8590c');
const DEPLOYMENT_MARKER = hexToRgb('#8250df');
const BASELINE_CURVE = hexToRgb('#1c7ed6');
const CANDIDATE_CURVE = hexToRgb('#e8590c');
const CHANGE_POINT = hexToRgb('#e03131');
const SLO_LIMIT = hexToRgb('#e03131');
const CAPACITY = hexToRgb('#2f9e44');
const FRONTIER = hexToRgb('#1c7ed6');
const SECOND_SERIES = hexToRgb('#1c7ed6');

let world: DashboardWorld;
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(path.join(WEB_DIST, 'index.html'))) {
    throw new Error(
      'apps/web is not built: run `node scripts/pnpm.js exec turbo run build --filter=@teapot/web`',
    );
  }
  [world, browser] = await Promise.all([startDashboardWorld(), launchChromium()]);
});

afterAll(async () => {
  await browser?.close();
  await world?.close();
});

interface VisitOptions {
  /** Signs in with this key first. */
  key?: string;
  width?: number;
  height?: number;
  dark?: boolean;
  /** Page errors the visit causes on purpose. */
  expectedErrors?: RegExp;
}

/**
 * Opens the dashboard in a new browser context and runs `steps` on its page; then the page must have
 * logged no error (but those `expectedErrors` matches), and the context closes, also when a step failed.
 */
async function visit(options: VisitOptions, steps: (page: Page) => Promise<void>): Promise<void> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: options.height ?? 860 },
    colorScheme: options.dark ? 'dark' : 'light',
  });
  try {
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    await page.goto(world.baseUrl);
    if (options.key) {
      await page.fill('#api-key', options.key);
      await page.click('button[type=submit]');
    }
    await steps(page);
    expect(errors.filter((error) => !options.expectedErrors?.test(error))).toEqual([]);
  } finally {
    await context.close();
  }
}

/** The whole page, or with `fullPage: false` what a laptop shows first (the README's picture). */
async function screenshot(page: Page, name: string, fullPage = true): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage });
}

/** The seeded endpoint whose weights are `quant`; the seeding names each after its quantisation. */
function seeded(quant: 'fp8' | 'fp16'): DashboardWorld['endpoints'][number] {
  const endpoint = world.endpoints.find((e) => e.name.endsWith(quant));
  if (!endpoint) throw new Error(`seeded ${quant} endpoint missing`);
  return endpoint;
}

/**
 * The column of a frontier plot's canvas where the SLO guide, a vertical dashed line, is drawn: the
 * tallest of the limit's red, spanning most of the plotting area (a ring is at most a dozen pixels tall).
 */
async function guideColumn(page: Page, selector: string): Promise<{ at: number; red: number[] }> {
  const height = await page.locator(`${selector} .u-over`).evaluate((element) => element.clientHeight);
  const red = await pixelColumns(page, selector, SLO_LIMIT);
  const at = red.indexOf(Math.max(...red));
  // Dashes of 8 on, 5 off: about 60% of the height.
  expect(red[at]).toBeGreaterThan(0.4 * height);
  return { at, red };
}

describe('the dashboard in chromium, on the real API over a seeded database', () => {
  it('asks for a key first, and says so clearly when the API refuses one', async () => {
    // The only error the page may log is the browser's own line about the 401.
    await visit({ expectedErrors: /401/ }, async (page) => {
      await page.waitForSelector('#api-key');
      await page.fill('#api-key', 'tpk_not_a_key_of_this_api');
      await page.click('button[type=submit]');
      const alert = page.locator('.key-form [role=alert]');
      await alert.waitFor();
      expect(await alert.textContent()).toContain('The API refused this key: Unknown or revoked API key.');
      await screenshot(page, 'bad-key');
      const url = page.url();
      expect(url).not.toContain('tpk_');
    });
  });

  it('lists both endpoints with their live configuration, latest figures and a drawn P99 ITL sparkline', async () => {
    await visit({ key: world.readKey }, async (page) => {
      for (const endpoint of world.endpoints) {
        const card = page.locator(`[data-endpoint="${endpoint.name}"]`);
        await card.locator('.figures').waitFor();
        const text = await card.textContent();
        expect(text).toContain('ITL P99');
        expect(text).toMatch(/ITL P99\s*[\d.]+ ms/);
        expect(text).toContain(endpoint.name.endsWith('fp8') ? 'W:fp8' : 'W:fp16');
      }
      await page.waitForFunction(
        () => document.querySelectorAll('.endpoint-card .plot[data-drawn]').length >= 2,
      );
      expect(await seriesPixels(page, '.endpoint-card', SPARKLINE)).toBeGreaterThan(20);
      expect(await page.evaluate(() => sessionStorage.getItem('teapot.apiKey'))).toBe(world.readKey);
      await screenshot(page, 'endpoints');
    });
  });

  it('shows an endpoint with its runs linked, and a run with the ITL of every token, client health and errors by class', async () => {
    await visit({ key: world.readKey }, async (page) => {
      const fp8 = seeded('fp8');
      await page.click(`[data-endpoint="${fp8.name}"] h2 a`);
      await page.locator('table.runs tbody tr').first().waitFor();
      expect(await page.locator('table.runs tbody tr').count()).toBe(fp8.runIds.length);
      await screenshot(page, 'endpoint');

      await page.locator('table.runs tbody tr a').first().click();
      // The endpoint page had a plot too: wait for the run's own, drawn (its per-token timings load
      // after the run's figures).
      await page.waitForSelector('.plot[aria-label="ITL of every token against time"][data-drawn]');
      expect(page.url()).toContain(`#/runs/${fp8.runIds[fp8.runIds.length - 1]}`);
      expect(await seriesPixels(page, '.plot', ITL_POINTS)).toBeGreaterThan(50);
      expect(await page.locator('p.ok, .flag.big').first().textContent()).toMatch(
        /Client (healthy|saturated)/,
      );
      expect(await page.locator('table.errors').textContent()).toContain('rate_limited');
      // The client diagnostics the run writer stored, with the catalogue's labels.
      const diagnostics = await page.locator('section.diagnostics').textContent();
      expect(diagnostics).toMatch(/tokens per chunk\s*[\d.]+ tokens/);
      // The server's own metrics: figures (an absent one as a dash, never 0) and their series drawn.
      await page.waitForSelector('.plot[aria-label^="The server\'s running"][data-drawn]');
      const server = (await page.locator('section.server-metrics').textContent()) ?? '';
      expect(server).toContain('1 of 5 scrapes failed: HTTP 503');
      expect(server).toMatch(/preemptions\s*4/);
      expect(server).toMatch(/prefix-cache hit rate\s*–/);
      expect(server).toMatch(/KV cache mean \/ max\s*80\.0% \/ 97\.0%/);
      // what the run sent, from its profile snapshot and summary
      expect((await page.locator('ul.facts').allTextContents()).join('\n')).toContain(
        'synthetic prompts: 48 in / 24 out tokens',
      );
      await screenshot(page, 'run');
    });
  });

  it("draws an endpoint's trend, and a changed picker changes the request", async () => {
    await visit({ key: world.readKey }, async (page) => {
      const fp16 = seeded('fp16');
      const firstTrend = page.waitForRequest((request) => request.url().includes('/trends?'));
      const firstChanges = page.waitForRequest((request) => request.url().includes('/change-points?'));
      await page.click(`[data-endpoint="${fp16.name}"] h2 a`);
      const first = new URL((await firstTrend).url());
      const changes = new URL((await firstChanges).url());
      expect(
        ['endpointId', 'metric', 'statistic', 'mode'].map((name) => changes.searchParams.get(name)),
      ).toEqual([fp16.id, 'itl', 'p99', 'robust']);
      expect(first.searchParams.get('metric')).toBe('itl');
      expect(first.searchParams.get('statistic')).toBe('p99');
      expect(first.searchParams.getAll('endpointId')).toEqual([fp16.id]);
      expect(first.searchParams.getAll('groupBy')).toEqual(['weightQuant']);
      expect(first.searchParams.has('includeSaturated')).toBe(false);

      // On a loaded machine the seeded runs may all be client-saturated: drawn only when asked.
      const withSaturated = page.waitForRequest((request) => request.url().includes('/trends?'));
      await page.check('.trend input[name=includeSaturated]');
      expect(new URL((await withSaturated).url()).searchParams.get('includeSaturated')).toBe('true');
      await page.waitForSelector('.trend .plot[data-drawn]');
      expect(await seriesPixels(page, '.trend', FIRST_SERIES)).toBeGreaterThan(20);
      expect(await page.locator('.trend .u-legend').textContent()).toContain('weightQuant fp16');
      expect(await seriesPixels(page, '.trend', DEPLOYMENT_MARKER)).toBeGreaterThan(20);
      expect(await page.locator('.trend .hint').textContent()).toContain('deployments');
      // The seeded history's step, found by the analysis the worker runs: drawn apart from deployments.
      expect(await seriesPixels(page, '.trend', CHANGE_POINT)).toBeGreaterThan(20);
      expect(await page.locator('.trend .hint').textContent()).toContain('change points');
      const legend = await page.locator('.trend ul.change-points li').allTextContents();
      expect(
        legend.some((text) =>
          /ms → [\d.]+ ms \(\+\d+%\), step in profile chat-48-in-24-out-c4, robust p = /.test(text),
        ),
      ).toBe(true);
      // The seeded step came with no new configuration version and no deployment: said so, and marked.
      const unexplained = page.locator('.trend ul.change-points li .attribution.unexplained');
      expect(await unexplained.allTextContents()).toContain('no recorded change: unexplained');
      expect(await unexplained.first().evaluate((element) => getComputedStyle(element).fontWeight)).toBe(
        '600',
      );
      await screenshot(page, 'endpoint-trend-changes');
      await screenshot(page, 'dashboard', false);
      const otava = page.waitForRequest((request) => request.url().includes('/change-points?'));
      await page.selectOption('.trend select[name=changePoints]', 'otava');
      expect(new URL((await otava).url()).searchParams.get('mode')).toBe('otava');
      await page.waitForSelector('.trend .plot[data-drawn]');

      const perRun = page.waitForRequest((request) => request.url().includes('/trends?'));
      await page.selectOption('.trend select[name=bucket]', 'run');
      const second = new URL((await perRun).url());
      expect(second.searchParams.get('bucket')).toBe('run');
      expect(second.searchParams.get('metric')).toBe('itl');

      // A rate offers only its pooled mean: the statistic follows the metric.
      const rate = page.waitForRequest((request) => request.url().includes('/trends?'));
      await page.selectOption('.trend select[name=metric]', 'output_tokens_per_s');
      const third = new URL((await rate).url());
      expect([third.searchParams.get('metric'), third.searchParams.get('statistic')]).toEqual([
        'output_tokens_per_s',
        'mean',
      ]);
      await page.waitForSelector('.trend .plot[data-drawn]');
      expect(await seriesPixels(page, '.trend', FIRST_SERIES)).toBeGreaterThan(20);
      await screenshot(page, 'endpoint-trend');
    });
  });

  it('compares two sides through POST /comparisons and shows the table, on a laptop and a phone in dark mode', async () => {
    for (const size of [
      { width: 1280, height: 860, dark: false, name: 'compare' },
      { width: 390, height: 844, dark: true, name: 'compare-phone-dark' },
    ]) {
      await visit({ key: world.readKey, ...size }, async (page) => {
        const [fp16, fp8] = [seeded('fp16'), seeded('fp8')];
        await page.click('nav a[href="#/compare"]');
        await page.locator('.compare-form').waitFor();
        await page.locator('.state.empty').waitFor();
        await page.waitForFunction(
          () => document.querySelectorAll('select[name="baseline.endpointId"] option').length > 2,
        );
        await page.selectOption('select[name="baseline.endpointId"]', fp16.id);
        await page.fill('input[name="baseline.value"]', 'fp16');
        await page.selectOption('select[name="candidate.endpointId"]', fp8.id);
        await page.fill('input[name="candidate.value"]', 'fp8');
        // On a loaded machine the seeded runs may all be client-saturated.
        await page.check('.compare-form input[name=includeSaturated]');
        const request = page.waitForRequest((r) => r.url().endsWith('/comparisons') && r.method() === 'POST');
        await page.click('.compare-form button[type=submit]');
        const body = (await request).postDataJSON() as Record<string, Record<string, unknown>>;
        expect(body.baseline).toMatchObject({
          endpointIds: [fp16.id],
          config: { weightQuant: ['fp16'] },
          includeSaturated: true,
        });
        expect(body.candidate).toMatchObject({ endpointIds: [fp8.id], config: { weightQuant: ['fp8'] } });
        expect(typeof body.baseline.from).toBe('string');
        expect(page.url()).toContain('candidate.value=fp8');

        await page.locator('table.comparison tbody tr').first().waitFor();
        const rows = await page.locator('table.comparison tbody tr').allTextContents();
        expect(
          rows.some((text) =>
            /^ITL p99(regressed|improved|unchanged|inconclusive)[\d.]+ ms[\d.]+ ms[+-]/.test(text),
          ),
        ).toBe(true);
        expect(await page.locator('.side-summary').first().textContent()).toContain(
          `${fp16.runIds.length} runs`,
        );
        expect(await page.locator('.overall .verdict').textContent()).toMatch(
          /^(regressed|improved|unchanged|inconclusive)$/,
        );
        // Both sides' ITL distributions, overlaid: a curve of each side's colour.
        await page.waitForSelector('.distributions .plot[data-drawn]');
        expect(await seriesPixels(page, '.distributions', BASELINE_CURVE)).toBeGreaterThan(20);
        expect(await seriesPixels(page, '.distributions', CANDIDATE_CURVE)).toBeGreaterThan(20);
        expect(await page.locator('.distributions .u-legend').textContent()).toMatch(
          /baseline \([\d,]+ tokens\).*candidate \([\d,]+ tokens\)/,
        );
        if (size.width < 600) {
          const overflow = await page.evaluate(
            () => document.documentElement.scrollWidth - window.innerWidth,
          );
          expect(overflow).toBeLessThanOrEqual(0);
        }
        await screenshot(page, size.name);
      });
    }
  });

  it("shows a sweep's capacity, SLO line and frontier, links its points' runs both ways, and overlays frontiers", async () => {
    await visit({ key: world.readKey }, async (page) => {
      const fp16 = seeded('fp16');
      const [older, newer] = world.sweeps;
      await page.click(`[data-endpoint="${fp16.name}"] h2 a`);
      await page.locator('table.sweep-list tbody tr').first().waitFor();
      expect(await page.locator('table.sweep-list tbody tr').count()).toBe(2);
      await page.click(`table.sweep-list a[href="#/sweeps/${newer.id}"]`);

      await page.locator('.sweep-outcome').waitFor();
      const figure = (name: string) =>
        page.locator(`.sweep-outcome [data-figure="${name}"] .value`).textContent();
      // The capacity the search converged on, as sweepOutcome found it when the world was seeded.
      expect(await figure('capacity at SLO')).toBe(`${Number(newer.capacity?.toPrecision(3))} streams`);
      // The bracket: the highest load that met the SLO is the capacity, and a higher one missed it.
      expect(await figure('highest load met')).toBe(await figure('capacity at SLO'));
      expect(await figure('lowest load missed')).toMatch(/^[\d.]+ streams$/);
      expect(await figure('cost at capacity')).toMatch(/^\$[\d.]+ per million output tokens$/);
      expect(await page.locator('.page-header').textContent()).toContain('converged');
      const rows = await page.locator('table.sweep-points tbody tr').allTextContents();
      expect(rows).toHaveLength(newer.runIds.length);
      expect(rows.filter((row) => / ms met/.test(row)).length).toBeGreaterThan(0);
      expect(rows.filter((row) => / ms missed/.test(row)).length).toBeGreaterThan(0);
      expect(await page.locator('table.sweep-points thead').textContent()).toContain(
        `p50 TPOT (limit ${SEEDED_SLO_LIMIT_MS} ms)`,
      );

      // The SLO limit (dashed red) and the capacity (green) over the measured TPOT (blue).
      await page.waitForSelector('.slo-plots .plot[data-drawn]');
      expect(await seriesPixels(page, '.slo-plots', FRONTIER)).toBeGreaterThan(20);
      expect(await seriesPixels(page, '.slo-plots', SLO_LIMIT)).toBeGreaterThan(20);
      expect(await seriesPixels(page, '.slo-plots', CAPACITY)).toBeGreaterThan(20);
      await page.waitForSelector('.frontier .plot[data-drawn]');
      expect(await seriesPixels(page, '.frontier', FRONTIER)).toBeGreaterThan(20);
      expect(await seriesPixels(page, '.frontier', CAPACITY)).toBeGreaterThan(10);
      expect(await page.locator('.frontier .u-legend').textContent()).toContain('frontier');
      // Points filled when they met the SLO, hollow red when they missed it, and the TPOT target as a
      // dashed vertical guide at 1000 / limit tokens/s per user.
      expect(await page.locator('.frontier .u-legend').textContent()).toMatch(/met the SLO.*missed the SLO/);
      const guide = await guideColumn(page, '.frontier');
      // The rest of the red is the missed points' rings (the frontier and the points that met are blue).
      const rings = guide.red.reduce((sum, count, x) => (Math.abs(x - guide.at) > 3 ? sum + count : sum), 0);
      expect(rings).toBeGreaterThan(10);
      expect(await page.locator('.frontier .hint').textContent()).toContain('A guide, not the verdict');
      await screenshot(page, 'sweep');

      // The third point's run, and back through its "point 3 of sweep" link.
      await page.click(`table.sweep-points a[href="#/runs/${newer.runIds[2]}"]`);
      const link = page.locator('a.sweep-link');
      await link.waitFor();
      expect(await link.textContent()).toBe(`point 3 of sweep ${newer.id.slice(0, 8)}`);
      await link.click();
      await page.locator('.sweep-outcome').waitFor();
      expect(page.url()).toContain(`#/sweeps/${newer.id}`);

      // Both sweeps' frontiers on one plot, one colour each, from the endpoint page.
      await page.click('.page-header a');
      await page.locator('table.sweep-list tbody tr').first().waitFor();
      expect(await page.locator('.sweeps .hint').textContent()).toContain('Tick two or more');
      await page.check(`.sweeps input[value="${older.id}"]`);
      await page.check(`.sweeps input[value="${newer.id}"]`);
      await page.waitForSelector('.sweeps .plot[data-drawn]');
      expect(await seriesPixels(page, '.sweeps', FIRST_SERIES)).toBeGreaterThan(20);
      expect(await seriesPixels(page, '.sweeps', SECOND_SERIES)).toBeGreaterThan(20);
      expect(await page.locator('.sweeps .u-legend').textContent()).toMatch(/v1 W:fp16 · .*v1 W:fp16 · /);
      expect(await page.locator('.sweeps .u-legend').textContent()).toContain('missed its SLO');
      // Both sweeps share one SLO: one guide, in the limit's red.
      await guideColumn(page, '.sweeps');
      await screenshot(page, 'endpoint-frontiers');

      // Capacity as a trend: the sweeps' statistics, and the change points of the searches' own values.
      const asked = (path: string) =>
        page.waitForRequest(
          (request) => request.url().includes(`${path}?`) && request.url().includes('metric=capacity'),
        );
      const [capacity, changes] = [asked('/trends'), asked('/change-points')];
      await page.selectOption('.trend select[name=metric]', 'capacity');
      expect(new URL((await capacity).url()).searchParams.get('statistic')).toBe('p50');
      expect(new URL((await changes).url()).searchParams.get('statistic')).toBe('mean');
      await page.waitForSelector('.trend .plot[data-drawn]');
      expect(await seriesPixels(page, '.trend', FIRST_SERIES)).toBeGreaterThan(20);
      expect(await page.locator('.trend .u-legend').textContent()).toContain('dimension concurrency');
      expect(await page.locator('.trend .hint').textContent()).toContain('one sample per sweep');
      await screenshot(page, 'endpoint-capacity-trend');
    });
  });

  it('fits a phone screen and follows the dark-mode preference', async () => {
    await visit({ key: world.readKey, width: 390, height: 844, dark: true }, async (page) => {
      await page.locator('.endpoint-card .figures').first().waitFor();
      const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      expect(background).toBe('rgb(13, 17, 23)');
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await screenshot(page, 'endpoints-phone-dark');

      // An endpoint's trend with its markers, and a run, on the same phone in the dark.
      const fp16 = seeded('fp16');
      await page.click(`[data-endpoint="${fp16.name}"] h2 a`);
      await page.waitForSelector('.trend .plot[data-drawn]');
      expect(await seriesPixels(page, '.trend', CHANGE_POINT)).toBeGreaterThan(20);
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
      ).toBeLessThanOrEqual(0);
      await screenshot(page, 'endpoint-phone-dark');
      await page.locator('table.runs tbody tr a').first().click();
      await page.waitForSelector('.plot[aria-label="ITL of every token against time"][data-drawn]');
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
      ).toBeLessThanOrEqual(0);
      await screenshot(page, 'run-phone-dark');
    });
  });
});
