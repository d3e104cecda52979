import { ScratchShelf, type ScratchUser } from './attempt-scratch';

function listener(): ScratchUser & { events: string[] } {
  const events: string[] = [];
  return {
    events,
    onEvent: (event, data) => events.push(`${event}:${data}`),
    onMessageBytes: (bytes, start, end) => events.push(`bytes:${bytes.toString('utf8', start, end)}`),
  };
}

describe('ScratchShelf', () => {
  it('hands a given-back scratch to the next user with nothing of the last stream left', () => {
    const shelf = new ScratchShelf();
    const first = listener();
    const scratch = shelf.take(first);
    scratch.parser.push('event: error\ndata: half a li');
    scratch.fields.finishReason = 'stop';
    shelf.give(scratch);

    const second = listener();
    const again = shelf.take(second);
    expect(again).toBe(scratch);
    expect(again.fields.finishReason).toBeNull();
    again.parser.push('data: whole\n\n');
    expect(second.events).toEqual(['bytes:whole']);
    expect(first.events).toEqual([]);
  });

  it('builds a new scratch while every one is in use', () => {
    const shelf = new ScratchShelf();
    const a = shelf.take(listener());
    const b = shelf.take(listener());
    expect(b).not.toBe(a);
  });

  it('keeps the first entries when the chunk arrays grow', () => {
    const scratch = new ScratchShelf().take(listener());
    const capacity = scratch.offsetsUs.length;
    for (let k = 0; k < capacity; k++) {
      scratch.offsetsUs[k] = k + 1;
      scratch.kinds[k] = k % 3;
      scratch.usage[k] = -1;
    }
    scratch.grow(capacity);
    expect(scratch.offsetsUs.length).toBe(2 * capacity);
    expect(scratch.offsetsUs[capacity - 1]).toBe(capacity);
    expect(scratch.kinds[capacity - 1]).toBe((capacity - 1) % 3);
    expect(scratch.usage[0]).toBe(-1);
  });
});
