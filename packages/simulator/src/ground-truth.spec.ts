import { GroundTruthStore, ResponseTrace, groundTruthFromJson, groundTruthToJson } from './ground-truth';

const trace = (id: string, expectedEvents = 4) =>
  new ResponseTrace(id, 'llama-8b', 3, 'chat', true, 1_000_000_000_000n, expectedEvents);

describe('ground truth', () => {
  it('keeps events in order with exact nanosecond times, growing past its first capacity', () => {
    const t = trace('a', 1);
    for (let i = 0; i < 5; i++)
      t.record(
        i === 0 ? 'role' : 'content',
        i === 0 ? 0 : 1,
        1_000_000_000_000n + BigInt(i),
        2_000_000_000_100n + BigInt(i),
        2_000_000_000_123n + BigInt(i),
      );
    const truth = t.toGroundTruth();
    expect(truth.events).toHaveLength(5);
    expect(truth.events[4]).toEqual({
      kind: 'content',
      tokens: 1,
      scheduledNs: 1_000_000_000_004n,
      writeStartNs: 2_000_000_000_104n,
      writtenNs: 2_000_000_000_127n,
    });
    expect(groundTruthFromJson(JSON.parse(JSON.stringify(groundTruthToJson(truth))))).toEqual(truth);
  });

  it('evicts the oldest responses beyond maxResponses', () => {
    const store = new GroundTruthStore({ maxResponses: 3, maxEvents: 1_000 });
    for (const id of ['a', 'b', 'c', 'd']) store.add(trace(id));
    expect(store.size).toBe(3);
    expect(store.get('a')).toBeUndefined();
    expect(store.get('d')).toBeDefined();
  });

  it('evicts the oldest responses beyond maxEvents, counting growth', () => {
    const store = new GroundTruthStore({ maxResponses: 100, maxEvents: 10 });
    const first = trace('first', 4);
    store.add(first);
    store.add(trace('second', 4));
    expect(store.size).toBe(2);
    const third = trace('third', 1);
    store.add(third);
    for (let i = 0; i < 4; i++)
      third.record('content', 1, 1_000_000_000_000n, 1_000_000_000_000n, 1_000_000_000_000n);
    expect(store.get('first')).toBeUndefined();
    expect(store.get('second')).toBeDefined();
    expect(store.get('third')?.eventCount).toBe(4);
  });
});
