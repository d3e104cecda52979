/** Output text: every token is one word of this fixed vocabulary with a leading space. */
export const VOCABULARY: readonly string[] = (
  'the of and to in is was for on that with as by at from it an be this are or which his her they ' +
  'tea pot kettle leaf water steam cup brew green black oolong white herbal milk sugar lemon honey ' +
  'morning evening garden river mountain valley forest meadow stone bridge harbor island village ' +
  'window door table chair lamp book letter paper pencil clock bell candle mirror basket ribbon ' +
  'quiet bright gentle warm cold early late slow quick small large old new calm soft clear deep ' +
  'walks reads writes pours waits listens watches carries opens closes turns finds keeps brings ' +
  'token stream batch decode prefill cache kernel tensor layer head model weight latency request'
).split(' ');

/** The text of `count` tokens starting at a seeded offset: deterministic, JSON-safe, no escaping. */
export function tokenText(start: number, count: number): string {
  let text = '';
  for (let i = 0; i < count; i++) text += ' ' + VOCABULARY[(start + i * 7) % VOCABULARY.length];
  return text;
}

/** Prompt tokens as the simulator counts them: whitespace-separated words (JavaScript's \s). */
export function countWords(text: string): number {
  return text.match(/\S+/g)?.length ?? 0;
}
