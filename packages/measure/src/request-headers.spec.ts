import { errors, Pool } from 'undici';
import { invalidRequestHeader } from './request-headers';

describe('invalidRequestHeader', () => {
  it('accepts what an endpoint needs', () => {
    expect(
      invalidRequestHeader({ authorization: 'Bearer x', 'x-api-key': 'k\t1', 'OpenAI-Organization': 'o' }),
    ).toBeNull();
  });

  it.each([
    [{ 'x-a': 'b\r\nevil: 1' }, /x-a: the value contains a control character \(U\+000D\)/],
    [{ 'x-a': 'b\u0001' }, /control character \(U\+0001\)/],
    [{ 'x-a': 'b\u007f' }, /control character \(U\+007F\)/],
    [{ 'x-a': 'caf\u00e9' }, /non-ASCII character \(U\+00E9\)/],
    [{ 'x-a': 'b\u202e' }, /non-ASCII character \(U\+202E\)/],
    [{ 'bad name': 'v' }, /bad name/],
    [{ 'Content-Length': '5' }, /Content-Length: set by the client/],
    [{ 'transfer-encoding': 'chunked' }, /transfer-encoding/],
    [{ Host: 'elsewhere' }, /Host/],
    [{ 'content-type': 'text/plain' }, /content-type/],
    [{ expect: '100-continue' }, /expect/],
  ])('refuses %j, naming the header', (headers, message) => {
    expect(invalidRequestHeader(headers)).toMatch(message);
  });

  it('refuses every value undici would refuse at dispatch', async () => {
    // undici's own check runs when a request is dispatched: what it refuses must never get past ours
    const pool = new Pool('http://127.0.0.1:1');
    try {
      for (let code = 0; code < 0x180; code++) {
        const value = `a${String.fromCharCode(code)}b`;
        const undiciRefuses = await new Promise<boolean>((resolve) => {
          pool.dispatch(
            { path: '/', method: 'GET', headers: { 'x-a': value } },
            {
              onRequestStart: (controller) => {
                controller.abort(new Error('checked'));
                resolve(false);
              },
              onResponseError: (_c, error) => resolve(error instanceof errors.InvalidArgumentError),
            },
          );
        });
        if (undiciRefuses) expect([code, invalidRequestHeader({ 'x-a': value })]).not.toEqual([code, null]);
      }
    } finally {
      await pool.destroy();
    }
  });
});
