import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TokenizerFileError } from './model-tokenizer';
import { invalidTokenizerPath, readTokenizerIn } from './tokenizer-path';
import { FIXTURES } from './test-support/corpus';

describe('tokenizer paths under TEAPOT_TOKENIZER_DIR', () => {
  let root: string;
  let dir: string;
  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'teapot-tokenizers-'));
    dir = path.join(root, 'tokenizers');
    fs.mkdirSync(path.join(dir, 'llama'), { recursive: true });
    fs.copyFileSync(FIXTURES.byteLevel, path.join(dir, 'llama', 'tokenizer.json'));
    fs.writeFileSync(path.join(root, 'secret.json'), '{"model": {}}');
    fs.symlinkSync(path.join(root, 'secret.json'), path.join(dir, 'link.json'));
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('accepts relative paths and refuses any that could leave the directory', () => {
    expect(invalidTokenizerPath('llama/tokenizer.json')).toBeNull();
    expect(invalidTokenizerPath('./a.json')).toBeNull();
    expect(invalidTokenizerPath('/etc/passwd')).toMatch(/relative/);
    expect(invalidTokenizerPath('../secret.json')).toMatch(/no "\.\." segment/);
    expect(invalidTokenizerPath('llama/../../secret.json')).toMatch(/no "\.\." segment/);
    expect(invalidTokenizerPath('C:/x.json')).toMatch(/relative path/);
    expect(invalidTokenizerPath('a\\..\\b')).toMatch(/relative path/);
    expect(invalidTokenizerPath('a\0b')).toMatch(/relative path/);
    expect(invalidTokenizerPath(' ')).toMatch(/empty/);
    expect(invalidTokenizerPath('a'.repeat(513))).toMatch(/at most 512/);
  });

  it('reads a file under the directory, named by its path there', () => {
    const source = readTokenizerIn(dir, 'llama/tokenizer.json');
    expect(source.name).toBe('llama/tokenizer.json');
    expect(Buffer.compare(Buffer.from(source.bytes), fs.readFileSync(FIXTURES.byteLevel))).toBe(0);
  });

  it('refuses an escape, a link out, a directory and a missing file, saying which', () => {
    expect(() => readTokenizerIn(dir, '../secret.json')).toThrow(/must not leave the tokenizer directory/);
    expect(() => readTokenizerIn(dir, 'link.json')).toThrow(/leads out of the tokenizer directory/);
    expect(() => readTokenizerIn(dir, 'gone.json')).toThrow(/cannot read tokenizer "gone.json" .*ENOENT/);
    expect(() => readTokenizerIn(dir, 'llama')).toThrow(TokenizerFileError);
    expect(() => readTokenizerIn(dir, 'llama')).toThrow(/cannot read tokenizer .*llama: not a file/);
  });
});
