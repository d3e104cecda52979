import { ARRIVAL, ArrivalInbox, type ArrivalSink } from './arrival-inbox';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

function sink(log: string[], name: string): ArrivalSink {
  return {
    handleRead: (chunk, arrivalNs) => log.push(`${name} read ${chunk.toString()} @${arrivalNs}`),
    handleEnd: () => log.push(`${name} end`),
    handleTransportError: (err) => log.push(`${name} error ${(err as Error).message}`),
  };
}

describe('ArrivalInbox', () => {
  it('processes the arrivals of a poll phase in the check phase, in arrival order, with their arrival times', async () => {
    const log: string[] = [];
    const inbox = new ArrivalInbox();
    const a = sink(log, 'a');
    const b = sink(log, 'b');
    inbox.push(a, ARRIVAL.data, Buffer.from('1'), 10);
    inbox.push(b, ARRIVAL.data, Buffer.from('2'), 11);
    inbox.push(a, ARRIVAL.end, null, 12);
    inbox.push(b, ARRIVAL.error, new Error('reset'), 13);
    expect(log).toEqual([]);
    await nextTurn();
    expect(log).toEqual(['a read 1 @10', 'b read 2 @11', 'a end', 'b error reset']);
  });

  it('keeps each arrival time past its first capacity, and those pushed while it works', async () => {
    const times: number[] = [];
    const inbox = new ArrivalInbox();
    let pushedMidWork = false;
    const recorder: ArrivalSink = {
      handleRead: (_chunk, arrivalNs) => {
        times.push(arrivalNs);
        // an abort's error arrives while the inbox works, and may make it grow
        if (!pushedMidWork) {
          pushedMidWork = true;
          for (let k = 0; k < 3000; k++) inbox.push(recorder, ARRIVAL.data, Buffer.from('x'), 1e10 + k + 0.5);
        }
      },
      handleEnd: () => undefined,
      handleTransportError: () => undefined,
    };
    // 4,000 fit its first capacity; the 3,000 pushed while it works make it grow under the worker
    for (let k = 0; k < 4000; k++) inbox.push(recorder, ARRIVAL.data, Buffer.from('x'), 5e9 + k + 0.25);
    inbox.drain();
    expect(times).toHaveLength(7000);
    expect(times[3999]).toBe(5e9 + 3999.25);
    expect(times[4000]).toBe(1e10 + 0.5);
    expect(times[6999]).toBe(1e10 + 2999.5);
  });

  it('works at most its budget per turn, at least one arrival, and leaves the rest for the next turns', async () => {
    const log: string[] = [];
    const inbox = new ArrivalInbox(0);
    const a = sink(log, 'a');
    for (let i = 0; i < 3; i++) inbox.push(a, ARRIVAL.data, Buffer.from(String(i)), i);
    await nextTurn();
    expect(log).toEqual(['a read 0 @0']);
    inbox.push(a, ARRIVAL.end, null, 3);
    await nextTurn();
    await nextTurn();
    await nextTurn();
    expect(log).toEqual(['a read 0 @0', 'a read 1 @1', 'a read 2 @2', 'a end']);
  });

  it('stops parsing where a send is due, one arrival per turn once it is', async () => {
    const log: string[] = [];
    const inbox = new ArrivalInbox();
    const a = sink(log, 'a');
    for (let i = 0; i < 3; i++) inbox.push(a, ARRIVAL.data, Buffer.from(String(i)), i);
    inbox.sendDueIn(0);
    await nextTurn();
    expect(log).toEqual(['a read 0 @0']);
    inbox.sendDueIn(null);
    await nextTurn();
    expect(log).toHaveLength(3);
  });

  it('bounds the read lag it estimates by the last poll of a loop that spins (never idle, yet polling)', async () => {
    const a = sink([], 'a');
    const busyFor = (ms: number) => {
      const until = performance.now() + ms;
      while (performance.now() < until);
    };
    const lagAfterBusy = async (inbox: ArrivalInbox, spinning: boolean) => {
      inbox.push(a, ARRIVAL.data, Buffer.from('x'), 1);
      await nextTurn();
      busyFor(20);
      if (spinning) inbox.polled();
      inbox.lagNs.reset();
      inbox.push(a, ARRIVAL.data, Buffer.from('y'), 2);
      await nextTurn();
      return inbox.lagNs.max / 1e6;
    };
    // busy 20 ms without polling: a read may have waited all of it
    expect(await lagAfterBusy(new ArrivalInbox(), false)).toBeGreaterThanOrEqual(19);
    // the same 20 ms spent spinning through poll phases: only the time since the last one counts
    expect(await lagAfterBusy(new ArrivalInbox(), true)).toBeLessThan(5);
  });

  it('drain() processes everything at once, whatever the budget or a send due', () => {
    const log: string[] = [];
    const inbox = new ArrivalInbox(0);
    const a = sink(log, 'a');
    for (let i = 0; i < 3; i++) inbox.push(a, ARRIVAL.data, Buffer.from(String(i)), i);
    inbox.sendDueIn(0);
    inbox.drain();
    expect(log).toHaveLength(3);
  });
});
