import { parseSse, SseLineTooLongError, SseParser } from './sse';

const enc = (s: string) => Buffer.from(s, 'utf8');

describe('SseParser', () => {
  it('parses several events in one read', () => {
    const { events } = parseSse(['data: a\n\ndata: b\n\ndata: [DONE]\n\n']);
    expect(events).toEqual([
      { event: 'message', data: 'a' },
      { event: 'message', data: 'b' },
      { event: 'message', data: '[DONE]' },
    ]);
  });

  it('reassembles an event split across reads at every byte', () => {
    const stream = 'data: {"x":"héllo 🫖"}\r\n\r\ndata: second\n\n';
    const bytes = enc(stream);
    const whole = parseSse([bytes]).events;
    expect(whole).toEqual([
      { event: 'message', data: '{"x":"héllo 🫖"}' },
      { event: 'message', data: 'second' },
    ]);
    for (let cut = 1; cut < bytes.length; cut++) {
      expect(parseSse([bytes.subarray(0, cut), bytes.subarray(cut)]).events).toEqual(whole);
    }
    // one byte per read: splits every multi-byte UTF-8 character
    expect(parseSse(Array.from(bytes, (b) => Uint8Array.of(b))).events).toEqual(whole);
  });

  it('accepts LF, CRLF and lone CR line endings, also a CR ending one read and its LF starting the next', () => {
    expect(parseSse(['data: a\r\rdata: b\r\n\r\ndata: c\n\n']).events.map((e) => e.data)).toEqual([
      'a',
      'b',
      'c',
    ]);
    expect(parseSse(['data: a\r', '\n\r', '\ndata: b\r', '\r']).events.map((e) => e.data)).toEqual([
      'a',
      'b',
    ]);
  });

  it('ignores comments and keep-alives, and other fields', () => {
    const { events } = parseSse([': keep-alive\n\n:\n', 'id: 7\nretry: 100\ndata: x\n\n', ': ping\n\n']);
    expect(events).toEqual([{ event: 'message', data: 'x' }]);
  });

  it('joins multi-line data with newlines and keeps the value after one optional space', () => {
    const { events } = parseSse(['data: line1\ndata:line2\ndata:  indented\ndata\n\n']);
    expect(events).toEqual([{ event: 'message', data: 'line1\nline2\n indented\n' }]);
  });

  it('names typed events, and dispatches an event: error even without data', () => {
    const { events } = parseSse(['event: error\ndata: {"message":"boom"}\n\nevent: error\n\n']);
    expect(events).toEqual([
      { event: 'error', data: '{"message":"boom"}' },
      { event: 'error', data: '' },
    ]);
  });

  it('skips a leading byte-order mark, even split across reads', () => {
    expect(parseSse([Uint8Array.of(0xef, 0xbb), Uint8Array.of(0xbf), 'data: a\n\n']).events).toEqual([
      { event: 'message', data: 'a' },
    ]);
  });

  it('at end dispatches a complete pending event but drops and reports a partial line', () => {
    expect(parseSse(['data: whole\n'])).toEqual({
      events: [{ event: 'message', data: 'whole' }],
      droppedBytes: 0,
    });
    expect(parseSse(['data: a\n\ndata: {"tru'])).toEqual({
      events: [{ event: 'message', data: 'a' }],
      droppedBytes: 'data: {"tru'.length,
    });
  });

  it('dispatches synchronously inside push, so the caller can stamp events with the read time', () => {
    const seen: Array<[number, string]> = [];
    let read = 0;
    const parser = new SseParser((_e, data) => seen.push([read, data]));
    read = 1;
    parser.push(enc('data: a\n\ndata: b'));
    read = 2;
    parser.push(enc('c\n\n'));
    expect(seen).toEqual([
      [1, 'a'],
      [2, 'bc'],
    ]);
  });

  it('hands an unnamed one-line event completed within a read to the bytes listener, the rest to onEvent', () => {
    const seen: string[] = [];
    const parser = new SseParser(
      (event, data) => seen.push(`text ${event} ${data}`),
      undefined,
      (bytes, start, end) => seen.push(`bytes ${bytes.toString('utf8', start, end)}`),
    );
    parser.push(
      enc('data: {"a":1}\r\n\r\ndata: x\ndata: y\n\nevent: error\ndata: e\n\ndata: f\nevent: error\n\n'),
    );
    parser.push(enc('data: sp'));
    parser.push(enc('lit\n'));
    parser.push(enc('\ndata: héllo\n\n'));
    parser.push(enc('event: message\ndata: named\n\n'));
    expect(seen).toEqual([
      'bytes {"a":1}',
      'text message x\ny',
      'text error e',
      'text error f',
      'text message split',
      'bytes héllo',
      'text message named',
    ]);
  });

  it('refuses an endless line instead of buffering it forever', () => {
    const parser = new SseParser(() => undefined, 16);
    expect(() => parser.push(enc('data: ' + 'x'.repeat(32)))).toThrow(SseLineTooLongError);
  });
});
