import * as path from 'node:path';

/** The test tokenizers (fixtures/README.md says how they were made). */
export const FIXTURES = {
  byteLevel: path.resolve(__dirname, '../../fixtures/byte-level.tokenizer.json'),
  sentencePiece: path.resolve(__dirname, '../../fixtures/sentencepiece.tokenizer.json'),
};

/** Pieces that exercise what tokenizers disagree on: whitespace runs, CRLF, digits, Unicode, emoji, code. */
const PIECES = [
  "The quick brown fox jumps over the lazy dog. It's 12345 o'clock; we'll see, they've gone.",
  'function f(x) {\n  return x * 2; // doubled\n}\n\n\tTabs\tand   spaces   ',
  'Ünïcödé: naïve café, Straße, 東京は日本の首都です。 한국어 텍스트. Привет мир!',
  'Emoji 👋🏽 🇫🇷 family 👨‍👩‍👧 and math ∑∫√π ≈ 3.14159265358979',
  'URLs https://example.com/a?b=c&d=e#f and mail a.b@c.de; JSON {"k": [1, 2.5e-3, null]}',
  '   leading spaces, trailing spaces   \r\n\r\nwindows lines\r\n',
  '<s> special-looking </s> <|begin_of_text|> [INST] not special? [/INST]',
  'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 0000000000000000 !!!!!!!!!!! ---- ____ ....',
  'P99 time to first token (TTFT) and inter-token latency: 12.5 ms, 0.3 ms; tokens/s = 4096.',
];

/** A fixed corpus: the pieces, then 300 seeded mixtures of them. */
export function referenceCorpus(): string[] {
  let state = 7;
  const draw = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const texts = [...PIECES];
  for (let i = 0; i < 300; i++) {
    let text = '';
    const parts = 1 + Math.floor(draw() * 4);
    for (let j = 0; j < parts; j++)
      text += PIECES[Math.floor(draw() * PIECES.length)] + (draw() < 0.5 ? ' ' : '');
    texts.push(text);
  }
  return texts;
}
