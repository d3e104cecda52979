import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** The test tokenizer of packages/tokenizer/fixtures (a byte-level BPE of this project's making). */
export const TEST_TOKENIZER = path.resolve(__dirname, '../../tokenizer/fixtures/byte-level.tokenizer.json');

/**
 * A TEAPOT_TOKENIZER_DIR for a test: `llama/tokenizer.json` (the test tokenizer) and `weights.json`
 * (JSON that is no tokenizer). `remove()` deletes it.
 */
export function tokenizerDirectory(): { dir: string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'teapot-tokenizers-'));
  fs.mkdirSync(path.join(dir, 'llama'));
  fs.copyFileSync(TEST_TOKENIZER, path.join(dir, 'llama', 'tokenizer.json'));
  fs.writeFileSync(path.join(dir, 'weights.json'), '{"weights": [1, 2, 3]}');
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
