// Makes the test tokenizers in fixtures/ (see fixtures/README.md): BPE trained with Hugging Face's
// own `tokenizers` (the Rust library, devDependency) on this repository's Markdown, cut to a small
// vocabulary and laid out as the two families teapot must read exactly:
// - byte-level.tokenizer.json: Llama 3 / Qwen style (regex split, byte-level alphabet, no unknown).
// - sentencepiece.tokenizer.json: Llama 2 / Mistral style (metaspace normalizer, no pre-tokenizer,
//   byte fallback, <unk> <s> </s>).
// Run from packages/tokenizer: node scripts/make-fixtures.mjs
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import native from 'tokenizers';

const MERGES = 1500;
const LLAMA3_SPLIT =
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

// the training text is fixed: the Markdown of this commit, so the script makes the same files every time
const COMMIT = '6480f22da1b2cc7dcbee8c75bfe78fd24fafb2b1';
const git = (...args) => execFileSync('git', args, { encoding: 'utf8', maxBuffer: 1 << 26 });
const docs = git('ls-tree', '-r', '--full-tree', '--name-only', COMMIT)
  .split('\n')
  .filter((file) => file.endsWith('.md'));
const scratch = mkdtempSync(join(tmpdir(), 'teapot-tokenizer-'));
const trainingText = join(scratch, 'docs.txt');
writeFileSync(trainingText, docs.map((file) => git('show', `${COMMIT}:${file}`)).join('\n'));

function trained(preTokenizer) {
  const tokenizer = new native.Tokenizer(native.BPE.empty());
  tokenizer.setPreTokenizer(preTokenizer);
  tokenizer.train([trainingText]);
  const path = join(scratch, 'trained.json');
  tokenizer.save(path);
  return JSON.parse(readFileSync(path, 'utf8'));
}

/** The first `count` merges and the vocabulary they and the alphabet make: BPE training stopped there. */
function cut(model, alphabet, count) {
  const merges = model.merges.slice(0, count).map((m) => (Array.isArray(m) ? m : m.split(' ')));
  const tokens = [...alphabet, ...merges.map(([a, b]) => a + b)];
  return { vocab: [...new Set(tokens)], merges };
}

/** An added token as tokenizer.json lists it. */
function special(content, id) {
  return { id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true };
}

function byteLevel() {
  // trained on GPT-2's split (the binding takes no regex for Split), close to Llama 3's that it is saved with
  const raw = trained(native.byteLevelPreTokenizer(false, true));
  const { vocab, merges } = cut(raw.model, native.byteLevelAlphabet().sort(), MERGES);
  const ids = Object.fromEntries(vocab.map((token, id) => [token, id]));
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [special('<|begin_of_text|>', vocab.length), special('<|end_of_text|>', vocab.length + 1)],
    normalizer: null,
    pre_tokenizer: {
      type: 'Sequence',
      pretokenizers: [
        { type: 'Split', pattern: { Regex: LLAMA3_SPLIT }, behavior: 'Isolated', invert: false },
        { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false },
      ],
    },
    post_processor: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: true },
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: true,
      vocab: ids,
      merges,
    },
  };
}

function sentencePiece() {
  const raw = trained(native.metaspacePreTokenizer('▁', 'always', true));
  const alphabet = Object.keys(raw.model.vocab)
    .filter((token) => [...token].length === 1)
    .sort();
  const cutModel = cut(raw.model, alphabet, MERGES);
  const bytes = Array.from({ length: 256 }, (_, b) => `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`);
  const vocab = [...new Set(['<unk>', '<s>', '</s>', ...bytes, ...cutModel.vocab])];
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [special('<unk>', 0), special('<s>', 1), special('</s>', 2)],
    normalizer: {
      type: 'Sequence',
      normalizers: [
        { type: 'Prepend', prepend: '▁' },
        { type: 'Replace', pattern: { String: ' ' }, content: '▁' },
      ],
    },
    pre_tokenizer: null,
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '<s>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
      pair: [
        { SpecialToken: { id: '<s>', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '<s>', type_id: 1 } },
        { Sequence: { id: 'B', type_id: 1 } },
      ],
      special_tokens: { '<s>': { id: '<s>', ids: [1], tokens: ['<s>'] } },
    },
    decoder: {
      type: 'Sequence',
      decoders: [
        { type: 'Replace', pattern: { String: '▁' }, content: ' ' },
        { type: 'ByteFallback' },
        { type: 'Fuse' },
        { type: 'Strip', content: ' ', start: 1, stop: 0 },
      ],
    },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: '<unk>',
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: true,
      byte_fallback: true,
      ignore_merges: false,
      vocab: Object.fromEntries(vocab.map((token, id) => [token, id])),
      merges: cutModel.merges,
    },
  };
}

for (const [name, json] of [
  ['byte-level', byteLevel()],
  ['sentencepiece', sentencePiece()],
]) {
  const text = JSON.stringify(json);
  native.Tokenizer.fromString(text); // the reference library reads it
  writeFileSync(`fixtures/${name}.tokenizer.json`, text + '\n');
}
console.log(`fixtures from ${docs.length} Markdown files at ${COMMIT}, ${MERGES} merges each`);
