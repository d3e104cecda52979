import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';

/** Debian's chromium: no browser download (playwright's own install cannot run here). */
export const CHROMIUM_PATH = process.env.TEAPOT_CHROMIUM ?? '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Screenshots land here (gitignored) for a person to look at. */
export const ARTIFACTS = path.join(__dirname, '..', 'test-artifacts');

export function launchChromium(): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: FLAGS });
}

/** Everything the page reported as an error: console errors and uncaught exceptions. */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.stack ?? error.message));
  return errors;
}

/**
 * Pixels of `rgb` (within a small tolerance, anti-aliasing) on the canvases under `selector`, counted
 * per column of canvas pixels (a vertical line stands out as one tall column).
 */
export function pixelColumns(page: Page, selector: string, rgb: [number, number, number]): Promise<number[]> {
  return page.evaluate(
    ({ selector, rgb }) => {
      const columns: number[] = [];
      for (const canvas of Array.from(document.querySelectorAll<HTMLCanvasElement>(`${selector} canvas`))) {
        const context = canvas.getContext('2d');
        if (!context || canvas.width === 0 || canvas.height === 0) continue;
        const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
        for (let i = 0; i < pixels.length; i += 4) {
          const close =
            Math.abs(pixels[i] - rgb[0]) < 24 &&
            Math.abs(pixels[i + 1] - rgb[1]) < 24 &&
            Math.abs(pixels[i + 2] - rgb[2]) < 24;
          const x = (i / 4) % canvas.width;
          if (close && pixels[i + 3] > 200) columns[x] = (columns[x] ?? 0) + 1;
        }
      }
      return Array.from(columns, (count) => count ?? 0);
    },
    { selector, rgb },
  );
}

/** Pixels of `rgb` on the canvases under `selector`: more than zero means the series itself was drawn, not just the axes. */
export async function seriesPixels(
  page: Page,
  selector: string,
  rgb: [number, number, number],
): Promise<number> {
  return (await pixelColumns(page, selector, rgb)).reduce((sum, count) => sum + count, 0);
}

export function hexToRgb(hex: string): [number, number, number] {
  const value = Number.parseInt(hex.replace('#', ''), 16);
  return [(value >> 16) & 255, (value >> 8) & 255, value & 255];
}
