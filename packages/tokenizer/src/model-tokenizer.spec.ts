import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Tokenizer as Reference } from 'tokenizers';
import { MAX_TOKENIZER_BYTES, ModelTokenizer, TokenizerFileError } from './model-tokenizer';
import { FIXTURES, referenceCorpus } from './test-support/corpus';

describe('ModelTokenizer', () => {
  // Hugging Face's Rust library (what vLLM, SGLang and transformers tokenize with) is the reference
  it.each(Object.entries(FIXTURES))(
    'encodes the fixed corpus exactly as the Rust library does (%s)',
    async (_, file) => {
      const ours = ModelTokenizer.fromFile(file);
      const reference = Reference.fromFile(file);
      let tokens = 0;
      for (const text of referenceCorpus()) {
        const expected = (await reference.encode(text, null, { addSpecialTokens: false })).getIds();
        expect({ text, ids: ours.encode(text) }).toEqual({ text, ids: expected });
        tokens += expected.length;
      }
      expect(tokens).toBeGreaterThan(30_000);
    },
  );

  it('names the file and its SHA-256, whether loaded from a path or from bytes', () => {
    const bytes = fs.readFileSync(FIXTURES.byteLevel);
    const fromFile = ModelTokenizer.fromFile(FIXTURES.byteLevel).identity;
    expect(fromFile).toEqual({
      name: 'byte-level.tokenizer.json',
      sha256: createHash('sha256').update(bytes).digest('hex'),
      sizeBytes: bytes.length,
    });
    expect(ModelTokenizer.fromBytes(bytes, 'byte-level.tokenizer.json').identity).toEqual(fromFile);
  });

  it('refuses what is not a tokenizer.json, saying why', () => {
    const bytes = (text: string) => Buffer.from(text);
    expect(() => ModelTokenizer.fromBytes(bytes('{"model": '), 'a.json')).toThrow(
      /a\.json is not a tokenizer\.json: not JSON/,
    );
    expect(() => ModelTokenizer.fromBytes(bytes('[1, 2]'), 'b.json')).toThrow(
      /b\.json is not a tokenizer\.json: it needs a "model"/,
    );
    expect(() => ModelTokenizer.fromBytes(bytes('{"model": {"type": "BPE"}}'), 'c.json')).toThrow(
      TokenizerFileError,
    );
    expect(() =>
      ModelTokenizer.fromBytes(bytes('{"model": {"type": "BPE", "vocab": {}, "merges": []}}'), 'd.json'),
    ).toThrow(/d\.json is not a usable tokenizer\.json/);
  });

  it('refuses a file over the size limit before reading it, and names a missing file', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'teapot-tokenizer-'));
    const huge = path.join(dir, 'huge.json');
    fs.writeFileSync(huge, '');
    fs.truncateSync(huge, MAX_TOKENIZER_BYTES + 1);
    expect(() => ModelTokenizer.fromFile(huge)).toThrow(
      /huge\.json is \d+ bytes; a tokenizer\.json may have at most/,
    );
    expect(() => ModelTokenizer.fromFile(path.join(dir, 'gone.json'))).toThrow(
      /cannot read tokenizer .*gone\.json: ENOENT/,
    );
    fs.rmSync(dir, { recursive: true });
  });
});
