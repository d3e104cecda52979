import { Http1ParseError, Http1ResponseParser, type ResponseHead } from './http1-framing';
import { mulberry32 } from './random';

/** What the parser made of a response: its head, its body bytes, where it ended, or why it failed. */
interface Parsed {
  heads: ResponseHead[];
  body: string;
  /** Offset in the whole input where the response ended; null while unfinished. */
  endedAt: number | null;
  error: string | null;
}

/**
 * Feeds `input` to one parser in reads ending at `cuts`, each copied into the same reused buffer
 * (as the transport's shared read buffer is), so that a range kept past its read would show up.
 */
function parse(input: Buffer, cuts: number[]): Parsed {
  const parser = new Http1ResponseParser();
  const shared = Buffer.alloc(input.length + 1);
  const heads: ResponseHead[] = [];
  let body = '';
  let from = 0;
  for (const to of [...cuts, input.length]) {
    if (to <= from) continue;
    shared.fill(0x7e);
    input.copy(shared, 0, from, to);
    const length = to - from;
    let at = 0;
    const collect = () => {
      for (let i = 0; i < parser.pieces.length; i += 2)
        body += shared.toString('latin1', parser.pieces[i], parser.pieces[i + 1]);
      parser.pieces.length = 0;
    };
    try {
      while (at < length || (parser.head !== null && parser.done)) {
        if (parser.head === null) {
          at = parser.readHead(shared, at, length);
          if (parser.head !== null) heads.push(parser.head);
          continue;
        }
        at = parser.readBody(shared, at, length);
        if (parser.done) break;
      }
    } catch (error) {
      if (!(error instanceof Http1ParseError)) throw error;
      collect();
      return { heads, body, endedAt: null, error: error.message };
    }
    collect();
    if (parser.done) return { heads, body, endedAt: from + at, error: null };
    from = to;
  }
  return { heads, body, endedAt: null, error: null };
}

const sse = (n: number) =>
  Array.from({ length: n }, (_, i) => `data: {"id":"c1","choices":[{"delta":{"content":"tok${i}"}}]}\n\n`);

function chunked(pieces: string[], sizeLine: (hex: string) => string = (h) => h): string {
  return pieces.map((p) => `${sizeLine(Buffer.byteLength(p).toString(16))}\r\n${p}\r\n`).join('');
}

const HEAD = 'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n';

/** Responses the parser must read, each followed by bytes of a next response that must not be read. */
const RESPONSES: Record<string, string> = {
  'chunked SSE': `${HEAD}${chunked(sse(6))}0\r\n\r\n`,
  'chunk extensions, upper-case hex, spaces after the size': `${HEAD}${chunked(sse(4), (h) => `${h.toUpperCase()} ;ext=1;x="y"`)}0\r\n\r\n`,
  'trailer fields': `${HEAD}${chunked(sse(2))}0\r\nx-trailer: 1\r\nx-other: two\r\n\r\n`,
  'content-length':
    'HTTP/1.1 400 Bad Request\r\ncontent-length: 25\r\nkeep-alive: timeout=5\r\n\r\n{"error":"bad request!!"}',
  '103 Early Hints first': `HTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\n${HEAD}${chunked(sse(2))}0\r\n\r\n`,
  '204 without a body': 'HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n',
  'repeated headers': `HTTP/1.1 200 OK\r\nset-cookie: a=1\r\nset-cookie: b=2\r\nx-a: 1\r\nx-a: 2\r\ntransfer-encoding: chunked\r\n\r\n${chunked(['hello'])}0\r\n\r\n`,
  'until close (HTTP/1.0, no length)':
    'HTTP/1.0 200 OK\r\ncontent-type: text/event-stream\r\n\r\ndata: {}\n\n',
};

const MALFORMED: Record<string, string> = {
  'a bad chunk size': `${HEAD}${chunked(sse(1))}zz\r\n`,
  'chunk data without CRLF': `${HEAD}5\r\nhelloXX`,
  'a digit after whitespace in the size': `${HEAD}5 5\r\nhello\r\n`,
  'a size line without digits': `${HEAD};ext\r\n`,
  'a bad status line': 'HTTP/2 200 OK\r\n\r\n',
  'a header line without a colon': 'HTTP/1.1 200 OK\r\nnot a header\r\n\r\n',
  'an unsupported transfer-encoding': 'HTTP/1.1 200 OK\r\ntransfer-encoding: gzip\r\n\r\n',
  'a negative content-length': 'HTTP/1.1 200 OK\r\ncontent-length: -1\r\n\r\n',
};

const NEXT = 'HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n';

function randomCuts(length: number, random: () => number, maxPiece: number): number[] {
  const cuts: number[] = [];
  for (let at = 1 + Math.floor(random() * maxPiece); at < length; at += 1 + Math.floor(random() * maxPiece))
    cuts.push(at);
  return cuts;
}

describe('Http1ResponseParser', () => {
  it('reads a chunked SSE response whole: head, body bytes, and where it ended', () => {
    const input = Buffer.from(RESPONSES['chunked SSE'] + NEXT, 'latin1');
    const whole = parse(input, []);
    expect(whole.error).toBeNull();
    expect(whole.heads).toHaveLength(1);
    expect(whole.heads[0]).toMatchObject({
      status: 200,
      statusText: 'OK',
      keepAlive: true,
      keepAliveHintMs: null,
    });
    expect(whole.body).toBe(sse(6).join(''));
    expect(whole.endedAt).toBe(Buffer.byteLength(RESPONSES['chunked SSE']));
  });

  it('reads the status, Keep-Alive hint and body of a content-length response', () => {
    const whole = parse(Buffer.from(RESPONSES['content-length'] + NEXT, 'latin1'), []);
    expect(whole.heads[0]).toMatchObject({ status: 400, keepAlive: true, keepAliveHintMs: 5000 });
    expect(whole.body).toBe('{"error":"bad request!!"}');
  });

  it('skips a 1xx head, joins repeated headers, and ends an HTTP/1.0 body only at close', () => {
    expect(parse(Buffer.from(RESPONSES['103 Early Hints first']), []).heads.map((h) => h.status)).toEqual([
      200,
    ]);
    const repeated = parse(Buffer.from(RESPONSES['repeated headers']), []).heads[0].headers;
    expect(repeated['set-cookie']).toEqual(['a=1', 'b=2']);
    expect(repeated['x-a']).toBe('1, 2');
    const untilClose = parse(Buffer.from(RESPONSES['until close (HTTP/1.0, no length)']), []);
    expect(untilClose).toMatchObject({ endedAt: null, body: 'data: {}\n\n' });
    expect(untilClose.heads[0].keepAlive).toBe(false);
  });

  describe.each(Object.entries(RESPONSES))('%s', (_name, response) => {
    const input = Buffer.from(response + NEXT, 'latin1');
    const whole = parse(input, []);

    it('parses the same at every split point as unsplit', () => {
      expect(whole.error).toBeNull();
      for (let cut = 1; cut < input.length; cut++) expect(parse(input, [cut])).toEqual(whole);
    });

    it('parses the same one byte per read, and in 300 random chunkings', () => {
      expect(
        parse(
          input,
          Array.from({ length: input.length - 1 }, (_, i) => i + 1),
        ),
      ).toEqual(whole);
      const random = mulberry32(7);
      for (let round = 0; round < 300; round++)
        expect(parse(input, randomCuts(input.length, random, 1 + (round % 40)))).toEqual(whole);
    });
  });

  describe.each(Object.entries(MALFORMED))('refuses %s', (_name, response) => {
    const input = Buffer.from(response, 'latin1');

    it('with the same error at every split point', () => {
      const whole = parse(input, []);
      expect(whole.error).not.toBeNull();
      for (let cut = 1; cut < input.length; cut++) expect(parse(input, [cut])).toEqual(whole);
      expect(
        parse(
          input,
          Array.from({ length: input.length - 1 }, (_, i) => i + 1),
        ),
      ).toEqual(whole);
    });
  });

  it('refuses a head larger than 64 KiB, however it is split', () => {
    const input = Buffer.from(`HTTP/1.1 200 OK\r\nx-big: ${'a'.repeat(70_000)}\r\n\r\n`, 'latin1');
    expect(parse(input, []).error).toMatch(/exceed/);
    expect(parse(input, [100, 40_000]).error).toMatch(/exceed/);
  });

  it('resets between responses on one connection', () => {
    const parser = new Http1ResponseParser();
    const first = Buffer.from(`${HEAD}${chunked(['abc'])}0\r\n\r\n`);
    let at = parser.readHead(first, 0, first.length);
    at = parser.readBody(first, at, first.length);
    expect(parser.done).toBe(true);
    parser.reset();
    expect(parser.done).toBe(false);
    expect(parser.head).toBeNull();
    expect(parser.pieces).toEqual([]);
    const second = Buffer.from(RESPONSES['content-length']);
    at = parser.readHead(second, 0, second.length);
    parser.readBody(second, at, second.length);
    expect(parser.head?.status).toBe(400);
    expect(parser.done).toBe(true);
  });

  it('forgets the headers it handed on and keeps what framing needs', () => {
    const parser = new Http1ResponseParser();
    const bytes = Buffer.from(RESPONSES['content-length']);
    parser.readHead(bytes, 0, bytes.length);
    const handedOn = parser.head!.headers;
    parser.forgetHeaders();
    expect(parser.head).toMatchObject({ status: 400, keepAlive: true, keepAliveHintMs: 5000, headers: {} });
    expect(handedOn['content-length']).toBe('25');
  });
});
