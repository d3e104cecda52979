import { paretoFrontier } from './frontier';

describe('paretoFrontier', () => {
  it('keeps the points no other beats on both tokens/s per user and per GPU', () => {
    // A typical sweep: per-GPU throughput rises with load while per-user speed falls, until the
    // endpoint saturates (point 4 gives per-user speed away for no throughput; 5 loses both).
    const points = [
      { index: 0, perUser: 90, perGpu: 100 },
      { index: 1, perUser: 80, perGpu: 300 },
      { index: 2, perUser: 60, perGpu: 700 },
      { index: 3, perUser: 40, perGpu: 900 },
      { index: 4, perUser: 20, perGpu: 900 },
      { index: 5, perUser: 10, perGpu: 850 },
    ];
    expect(paretoFrontier(points)).toEqual([0, 1, 2, 3]);
  });

  it('orders by ascending tokens/s per GPU, whatever the measuring order', () => {
    const points = [
      { index: 0, perUser: 40, perGpu: 900 },
      { index: 1, perUser: 90, perGpu: 100 },
      { index: 2, perUser: 60, perGpu: 700 },
    ];
    expect(paretoFrontier(points)).toEqual([1, 2, 0]);
  });

  it('keeps equal points both (neither beats the other) and is empty for no points', () => {
    const twins = [
      { index: 0, perUser: 50, perGpu: 500 },
      { index: 1, perUser: 50, perGpu: 500 },
      { index: 2, perUser: 49, perGpu: 500 },
    ];
    expect(paretoFrontier(twins)).toEqual([0, 1]);
    expect(paretoFrontier([])).toEqual([]);
  });
});
