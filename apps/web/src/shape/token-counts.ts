/** The parts of a run's stored summary (RunSummary) that say where its token counts came from. */
export interface TokenProvenance {
  tokenSources?: Record<string, number>;
  promptTokenSources?: Record<string, number>;
  promptOverheadTokens?: { min: number; max: number };
  tokenizer?: { name: string; sha256: string; sizeBytes: number };
}

const OUTPUT_SOURCES: Record<string, string> = {
  usage_delta: 'server usage on every chunk',
  usage_final: 'final server usage',
  tokenizer: 'the tokenizer (no usage from the server)',
  chunk: 'one per chunk (an estimate: no usage, no tokenizer)',
};

const PROMPT_SOURCES: Record<string, string> = {
  usage: 'server usage',
  tokenizer: 'the tokenizer (no usage from the server)',
  words: 'word count (an estimate)',
};

function counted(sources: Record<string, number> | undefined, names: Record<string, string>): string | null {
  const parts = Object.entries(sources ?? {})
    .filter(([, n]) => n > 0)
    .map(([source, n]) => `${names[source] ?? source}: ${n} requests`);
  return parts.length > 0 ? parts.join(' · ') : null;
}

/** Where a run's output and prompt counts came from, and the tokenizer that counted, as lines to show. */
export function tokenCountFacts(summary: TokenProvenance | null): string[] {
  if (summary === null) return [];
  const facts: string[] = [];
  const output = counted(summary.tokenSources, OUTPUT_SOURCES);
  if (output) facts.push(`Output tokens counted by ${output}`);
  const prompt = counted(summary.promptTokenSources, PROMPT_SOURCES);
  if (prompt) facts.push(`Prompt tokens counted by ${prompt}`);
  const { tokenizer, promptOverheadTokens: overhead } = summary;
  if (tokenizer) {
    const added =
      overhead === undefined
        ? ''
        : `; the server adds ${overhead.min === overhead.max ? overhead.min : `${overhead.min}–${overhead.max}`} prompt tokens (chat template)`;
    facts.push(`Tokenizer ${tokenizer.name}, sha256 ${tokenizer.sha256}${added}`);
  }
  return facts;
}
