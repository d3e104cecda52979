import { ChunkFields, chunkFieldsFromJson, scanChunk } from './chunk-scan';
import { CHUNK_KIND } from './types';

const enc = (s: string) => Buffer.from(s, 'utf8');

/** What the JSON.parse path yields, or null where it would not record a chunk (malformed, not an object, error). */
function reference(text: string): ChunkFields | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  const chunk = parsed as Record<string, unknown>;
  if (chunk.error !== undefined && chunk.error !== null) return null;
  const out = new ChunkFields();
  chunkFieldsFromJson(chunk, out);
  return out;
}

function scanned(text: string | Buffer, wantId = true): ChunkFields | null {
  const bytes = typeof text === 'string' ? enc(`data: ${text}\n`) : text;
  const start = typeof text === 'string' ? 6 : 0;
  const end = typeof text === 'string' ? bytes.length - 1 : bytes.length;
  const out = new ChunkFields();
  return scanChunk(bytes, start, end, wantId, out) ? out : null;
}

/** The scan may decline anything, but what it accepts must be exactly what JSON.parse gives. */
function expectAgrees(text: string): boolean {
  const fast = scanned(text);
  if (fast !== null) expect({ text, fields: fast }).toEqual({ text, fields: reference(text) });
  return fast !== null;
}

const common = [
  '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1796213406,"model":"llama-8b","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":1,"completion_tokens":0,"total_tokens":1}}',
  '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1796213406,"model":"llama-8b","choices":[{"index":0,"delta":{"content":" forest"},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":12,"completion_tokens":2,"total_tokens":14}}',
  '{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"content":" window"},"finish_reason":"length"}],"usage":{"prompt_tokens":1,"completion_tokens":3}}',
  '{"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":3,"total_tokens":4}}',
  '{"id":"cmpl-1","object":"text_completion","choices":[{"index":0,"text":" hi","logprobs":null,"finish_reason":null}]}',
  '{"id":"x","choices":[{"index":0,"delta":{"reasoning_content":"think"}}]}',
  '{"id":"x","choices":[{"index":0,"delta":{"reasoning":"think","content":null}}]}',
  '{"id":"x","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"a\\":1}"}}]}}]}',
  '{"id":"x","choices":[{"delta":{"content":"caf\\u00e9 \\"q\\" héllo 🫖"},"finish_reason":null}]}',
  ' {"id":"x","choices":[{"delta":{}}],"usage":null} ',
  '{"id":"x","choices":[{"delta":{"content":"a"}},{"delta":{"content":"b"}}],"error":null}',
];

describe('scanChunk', () => {
  it('reads the chunks real servers send exactly as JSON.parse does', () => {
    for (const text of common.slice(0, -1)) expect(expectAgrees(text)).toBe(true);
    expect(scanned(common[1])).toMatchObject({
      kind: CHUNK_KIND.content,
      id: 'chatcmpl-1',
      completionTokens: 2,
      promptTokens: 12,
      finishReason: null,
    });
    expect(scanned(common[2])?.finishReason).toBe('length');
    expect(scanned(common[5])?.kind).toBe(CHUNK_KIND.reasoning);
    expect(scanned(common[7])?.kind).toBe(CHUNK_KIND.toolCall);
    expect(scanned(common[4])?.kind).toBe(CHUNK_KIND.content);
    expect(scanned(common[0])?.kind).toBe(CHUNK_KIND.empty);
  });

  it('decodes the id only when asked', () => {
    expect(scanned(common[1], false)?.id).toBeNull();
    expect(scanned(common[1], true)?.id).toBe('chatcmpl-1');
  });

  it('declines, for JSON.parse to judge, whatever is invalid or unusual', () => {
    const declined = [
      '',
      '[DONE]',
      '[1]',
      '"text"',
      'null',
      '{"id":"x"',
      '{"id":"x"}}',
      '{"id":"x",}',
      '{"id" "x"}',
      "{'id':'x'}",
      '{"id":"x"} x',
      '{"id":"\\x"}',
      '{"id":"\\u12g4"}',
      '{"id":"tab\there"}',
      '{"choices":[{"delta":{"content":"a"}}],"usage":{"completion_tokens":01}}',
      '{"usage":{"completion_tokens":1.}}',
      '{"usage":{"completion_tokens":-}}',
      '{"usage":{"completion_tokens":tru}}',
      '\ufeff{"id":"x"}',
      // valid, but left to JSON.parse
      '{"error":{"message":"boom"}}',
      '{"error":null,"id":"x"}',
      '{"id":"a\\u0062"}',
      '{"id":"a","id":"b"}',
      '{"choices":[{"delta":{"content":"a"}}],"choices":[]}',
      '{"choices":[{"delta":{"content":"a","content":""}}]}',
      '{"choices":[{"finish_reason":"st\\u006fp"}]}',
      '{"choices":[{"delta":{"con\\u0074ent":"a"}}]}',
      '{"choices":[null]}',
      '{"choices":[[]]}',
      '{"usage":{"completion_tokens":1.5}}',
      '{"usage":{"completion_tokens":-0}}',
      '{"usage":{"completion_tokens":1e3}}',
      '{"usage":{"prompt_tokens":12345678901234567}}',
      `{"x":${'['.repeat(40)}${']'.repeat(40)}}`,
    ];
    for (const text of declined) {
      expect({ text, fields: scanned(text) }).toEqual({ text, fields: null });
      expectAgrees(text);
    }
  });

  it('agrees with JSON.parse on valid shapes it accepts', () => {
    const shapes = [
      '{}',
      '{"choices":{"0":{"delta":{"content":"a"}}}}',
      '{"choices":[{"delta":null,"text":"t"}]}',
      '{"choices":[{"delta":"content","text":""}]}',
      '{"choices":[{"delta":[],"finish_reason":7}]}',
      '{"choices":[{"delta":{"content":"","reasoning":"r","tool_calls":[]}}]}',
      '{"choices":[{"delta":{"tool_calls":{}}}]}',
      '{"choices":[{"delta":{"content":"\\u0000"}}]}',
      '{"usage":"12","id":7}',
      '{"usage":[1,2],"id":null}',
      '{"usage":{"completion_tokens":"3","prompt_tokens":null}}',
      '{"usage":{"completion_tokens":0,"prompt_tokens":0}}',
      '{"usage":{"total_tokens":-1.5e-3,"x":{"y":[true,false,null,"s",0,-2,3.25E+2]}}}',
      '{"a":{"__proto__":1,"content":"x"},"__proto__":{"id":"y"}}',
      '{\t"id" :\r\n"x" , "choices" : [ { "delta" : { "content" : "a" } } ] }',
      '{"id":"é","choices":[{"finish_reason":"stop","delta":{"content":"🫖"}}]}',
    ];
    for (const text of shapes) expect(expectAgrees(text)).toBe(true);
  });

  it('matches JSON.parse on invalid UTF-8 inside strings (both see U+FFFD)', () => {
    const bytes = Buffer.concat([enc('{"id":"a'), Buffer.from([0xe2, 0x82]), enc('","choices":[]}')]);
    const out = new ChunkFields();
    expect(scanChunk(bytes, 0, bytes.length, true, out)).toBe(true);
    expect(out).toEqual(reference(bytes.toString('utf8')));
  });

  it('never accepts what JSON.parse would read differently, over random corruptions of real chunks', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const alphabet = '{}[]":,\\ 0123456789.-+eEtrufalsn\tuabcdéx';
    let accepted = 0;
    for (let i = 0; i < 4000; i++) {
      const chars = Array.from(common[Math.floor(random() * common.length)]);
      const edits = 1 + Math.floor(random() * 3);
      for (let e = 0; e < edits; e++) {
        const at = Math.floor(random() * chars.length);
        const op = random();
        const c = alphabet[Math.floor(random() * alphabet.length)];
        if (op < 0.4) chars.splice(at, 1);
        else if (op < 0.7) chars.splice(at, 0, c);
        else chars[at] = c;
      }
      if (expectAgrees(chars.join(''))) accepted++;
    }
    // the corruptions must exercise the accepting path too, not only declines
    expect(accepted).toBeGreaterThan(100);
  });
});
