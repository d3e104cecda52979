import { PairDistances } from './e-divisive';
import { detectInWindow, otavaChangePoints, otavaTTest } from './otava';

// Input series and expected change points from Apache Otava's own tests (tests/analysis_test.py,
// change_point_divisive_test.py, series_test.py, tigerbeetle_test.py): the numbers are Otava's.

const SINGLE = [
  1.02, 0.95, 0.99, 1.0, 1.12, 1.0, 1.01, 0.98, 1.01, 0.96, 0.5, 0.51, 0.48, 0.48, 0.55, 0.5, 0.49, 0.51, 0.5,
  0.49,
];
const SEQUENCE = [0.3, 2.4, 1.5, -0.9, -0.5, 99.7, 98.3, 99.1, 149.0, 149.7, 149.5, 149.1, 148.8, 150.0];
const SERIES_1 = [1.02, 0.95, 0.99, 1.0, 1.12, 0.9, 0.5, 0.51, 0.48, 0.48, 0.55];
const SERIES_2 = [2.02, 2.03, 2.01, 2.04, 1.82, 1.85, 1.79, 1.81, 1.8, 1.76, 1.78];
const SERIES_3 = [...Array(5).fill(1), ...Array(8).fill(5), ...Array(8).fill(9), ...Array(9).fill(3)];
const DIV_BY_ZERO = [0.0, 0.0, 0.0, 1.0, 1.12, 0.9, 0.5, 0.51, 0.48, 0.48, 0.55];
// prettier-ignore
const TIGERBEETLE = [26705, 26475, 26641, 26806, 26835, 26911, 26564, 26812, 26874, 26682, 15672, 26745, 26460, 26977, 26851, 23412, 23547, 23674, 23519, 23670, 23662, 23462, 23750, 23717, 23524, 23588, 23687, 23793, 23937, 23715, 23570, 23730, 23690, 23699, 23670, 23860, 23988, 23652, 23681, 23798, 23728, 23604, 23523, 23412, 23685, 23773, 23771, 23718, 23409, 23739, 23674, 23597, 23682, 23680, 23711, 23660, 23990, 23938, 23742, 23703, 23536, 24363, 24414, 24483, 24509, 24944, 24235, 24560, 24236, 24667, 24730, 28346, 28437, 28436, 28057, 28217, 28456, 28427, 28398, 28250, 28331, 28222, 28726, 28578, 28345, 28274, 28514, 28590, 28449, 28305, 28411, 28788, 28404, 28821, 28580, 27483, 26805, 27487, 27124, 26898, 27295, 26951, 27312, 27660, 27154, 27050, 26989, 27193, 27503, 27326, 27375, 27513, 27057, 27421, 27574, 27609, 27123, 27824, 27644, 27394, 27836, 27949, 27702, 27457, 27272, 28207, 27802, 27516, 27586, 28005, 27768, 28543, 28237, 27915, 28437, 28342, 27733, 28296, 28524, 28687, 28258, 28611, 29360, 28590, 29641, 28965, 29474, 29256, 28611, 28205, 28539, 27962, 28398, 28509, 28240, 28592, 28102, 28461, 28578, 28669, 28507, 28535, 28226, 28536, 28561, 28087, 27953, 28398, 28007, 28518, 28337, 28242, 28607, 28545, 28514, 28377, 28010, 28412, 28633, 28576, 28195, 28637, 28724, 28466, 28287, 28719, 28425, 28860, 28842, 28604, 28327, 28216, 28946, 28918, 29287, 28725, 29148, 29541, 29137, 29628, 29087, 28612, 29154, 29108, 28884, 29234, 28695, 28969, 28809, 28695, 28634, 28916, 29852, 29389, 29757, 29531, 29363, 29251, 29552, 29561, 29046, 29795, 29022, 29395, 28921, 29739, 29257, 29455, 29376, 29528, 28909, 29492, 28984, 29621, 29026, 29457, 29102, 29114, 28924, 29162, 29259, 29554, 29616, 29211, 29367, 29460, 28836, 29645, 29586, 28848, 29324, 28969, 29150, 29243, 29081, 29312, 28923, 29272, 29117, 29072, 29529, 29737, 29652, 29612, 29856, 29012, 30402, 29969, 29309, 29439, 29285, 29421, 29023, 28772, 29692, 29416, 29267, 29542, 29904, 30045, 29739, 29945, 29141, 29163, 29765, 29197, 29441, 28910, 29504, 29614, 29643, 29506, 29420, 29672, 29432, 29784, 29888, 29309, 29247, 29816, 29254, 29813, 29451, 29382, 29618, 28558, 29845, 29499, 29283, 29184, 29246, 28790, 29952, 29145, 29415, 30437, 29227, 29605, 29859, 29156, 29807, 29406, 29734, 29861, 29140, 29983, 29832, 29919, 29896, 29991, 29266, 29001, 29459, 29548, 29310, 29042, 29303, 29894, 29091, 29018, 29537, 29614, 29180, 29736, 29500, 29218, 29581, 28906, 28542, 29306, 28987, 29878, 28865, 30272, 29707, 29662, 29815, 30492, 29347, 30096, 29054, 30238, 28813, 31895, 28915];

const indexes = (series: number[], options: Parameters<typeof otavaChangePoints>[1]) =>
  otavaChangePoints(series, options).map((cp) => cp.index);

/** Q by its definition, summing every pair (Otava's compute_Q_and_candidate_slow). */
function slowQ(z: number[], tau: number, kappa: number): number {
  const x = z.slice(0, tau);
  const y = z.slice(tau, kappa);
  const n = x.length;
  const m = y.length;
  let a = 0;
  for (const xi of x) for (const yj of y) a += Math.abs(xi - yj);
  let b = 0;
  for (let i = 0; i < n; i++) for (let k = i + 1; k < n; k++) b += Math.abs(x[i] - x[k]);
  let c = 0;
  for (let j = 0; j < m; j++) for (let k = j + 1; k < m; k++) c += Math.abs(y[j] - y[k]);
  return (
    (2 / (m + n)) * a -
    (n > 1 ? ((2 * m) / (m + n) / (n - 1)) * b : 0) -
    (m > 1 ? ((2 * n) / (m + n) / (m - 1)) * c : 0)
  );
}

describe('E-Divisive Q (Otava test_calculator_candidate)', () => {
  it('equals the pairwise definition for every split, and the candidate is its first maximum', () => {
    const distances = new PairDistances(SEQUENCE);
    let best = { index: -1, q: 0 };
    for (let tau = 1; tau < SEQUENCE.length; tau++) {
      for (let kappa = tau + 1; kappa <= SEQUENCE.length; kappa++) {
        const slow = slowQ(SEQUENCE, tau, kappa);
        expect(distances.q(0, tau, kappa)).toBeCloseTo(slow, 9);
        if (slow > best.q) best = { index: tau, q: slow };
      }
    }
    const candidate = distances.candidate(0, SEQUENCE.length);
    expect(candidate?.index).toBe(best.index);
    expect(candidate?.qhat).toBeCloseTo(best.q, 9);
  });
});

describe('Otava t-test (test_significance_tester)', () => {
  it('is not significant between two halves of one level, p close to 1', () => {
    const series = [1.0, 1.02, 1.05, 0.95, 0.98, 1.0, 1.02, 1.05, 0.95, 0.98];
    const { pValue } = otavaTTest(series.slice(0, 5), series.slice(5));
    expect(pValue).toBeGreaterThan(0.99);
    expect(pValue).toBeLessThan(1.01);
  });
  it('is significant at 0.001 across a 20% drop', () => {
    const series = [1.0, 1.02, 1.05, 0.95, 0.98, 0.8, 0.82, 0.85, 0.79, 0.77];
    const { pValue } = otavaTTest(series.slice(0, 5), series.slice(5));
    expect(pValue).toBeGreaterThan(0);
    expect(pValue).toBeLessThan(0.001);
  });
  it('has no degrees of freedom with one value a side: p = 1', () => {
    expect(otavaTTest([1], [2]).pValue).toBe(1);
  });
});

describe('Otava detector over one window (test_ttest)', () => {
  it('finds [5, 8] in the three-level sequence at p 0.01', () => {
    expect(detectInWindow(SEQUENCE, 0.01).map((cp) => cp.index)).toEqual([5, 8]);
  });
});

describe('otavaChangePoints agrees with Otava', () => {
  it('test_single_series: window 10, p 0.0001 -> [10]', () => {
    expect(indexes(SINGLE, { window: 10, maxPValue: 0.0001 })).toEqual([10]);
  });
  it('test_change_point_detection: defaults -> series1 [6], series2 [4]', () => {
    expect(indexes(SERIES_1, {})).toEqual([6]);
    expect(indexes(SERIES_2, {})).toEqual([4]);
  });
  it('test_change_point_detection_many: p 0.05, magnitude 0 -> three points, the first at 5', () => {
    const found = indexes(SERIES_3, { maxPValue: 0.05, minMagnitude: 0 });
    expect(found).toHaveLength(3);
    expect(found[0]).toBe(5);
    expect(found).toEqual([5, 13, 21]);
  });
  it('test_change_point_min_magnitude: magnitude 0.2 keeps series1 [6] and drops series2', () => {
    expect(indexes(SERIES_1, { minMagnitude: 0.2 })).toEqual([6]);
    expect(indexes(SERIES_2, { minMagnitude: 0.2 })).toEqual([]);
    for (const cp of otavaChangePoints(SERIES_1, { minMagnitude: 0.2 }))
      expect(cp.magnitude).toBeGreaterThanOrEqual(0.2);
  });
  it('test_div_by_zero: two points, the first at 3, all finite', () => {
    const found = otavaChangePoints(DIV_BY_ZERO);
    expect(found).toHaveLength(2);
    expect(found[0].index).toBe(3);
    for (const cp of found) expect(Number.isFinite(cp.magnitude)).toBe(true);
  });
  it('test_incremental_otava (recomputed whole): series2 + [1.97] -> [4]', () => {
    expect(indexes([...SERIES_2, 1.97], {})).toEqual([4]);
    expect(indexes([...SERIES_1, 0.5, 0.51], {})).toEqual([6]);
  });

  const tigerbeetle: Array<[number, number, number[]]> = [
    [0.01, 0.05, [15, 71]],
    [0.05, 0.05, [15, 71]],
    [0.1, 0.05, [10, 11, 15, 71, 363]],
    [0.2, 0.05, [10, 11, 15, 71]],
    [
      0.1,
      0.01,
      [
        10, 11, 15, 28, 29, 35, 37, 48, 49, 61, 71, 95, 117, 131, 142, 148, 165, 169, 192, 206, 212, 260, 265,
        268, 278, 282, 363,
      ],
    ],
    [
      0.2,
      0,
      [
        3, 6, 7, 10, 11, 13, 15, 16, 28, 29, 35, 37, 39, 41, 44, 48, 49, 56, 58, 61, 65, 66, 69, 71, 74, 76,
        82, 95, 108, 117, 125, 126, 129, 131, 136, 137, 142, 148, 165, 169, 187, 190, 192, 197, 200, 212, 220,
        241, 243, 246, 247, 249, 250, 260, 265, 266, 268, 278, 282, 288, 305, 306, 325, 330, 337, 338, 340,
        347, 349, 363,
      ],
    ],
    [
      0.1,
      0,
      [
        3, 6, 10, 11, 15, 16, 28, 29, 35, 37, 39, 41, 44, 48, 49, 61, 71, 95, 117, 131, 142, 148, 165, 169,
        192, 206, 212, 260, 265, 268, 278, 282, 288, 305, 363,
      ],
    ],
    [0.01, 0, [15, 26, 61, 71, 95, 117, 131, 142, 148, 165, 169, 192, 212, 260]],
    [0.001, 0, [15, 61, 71, 95, 117, 131, 142, 148, 192, 212, 260]],
    [0.0001, 0, [71, 95, 117, 131, 142, 148, 192, 212]],
    [0.00001, 0, [71, 95, 131, 192, 212]],
  ];
  it.each(tigerbeetle)(
    'tigerbeetle_test: window 30, p %p, magnitude %p',
    (maxPValue, minMagnitude, expected) => {
      expect(indexes(TIGERBEETLE, { window: 30, maxPValue, minMagnitude })).toEqual(expected);
    },
  );
});

describe("Otava's merge recomputes only the right-hand neighbours of a removed point", () => {
  it('is copied by default (the vectors above need it); mergeRecompute both gives other answers', () => {
    const options = { window: 30, maxPValue: 0.001, minMagnitude: 0 };
    expect(indexes(TIGERBEETLE, options)).toEqual([15, 61, 71, 95, 117, 131, 142, 148, 192, 212, 260]);
    expect(indexes(TIGERBEETLE, { ...options, mergeRecompute: 'both' })).toEqual([
      15, 61, 71, 95, 117, 131, 142, 148, 192, 212,
    ]);
  });
});

describe('otavaChangePoints refuses what it cannot compute on', () => {
  it('a value that is not a finite number, a p-value bound outside (0, 1], a negative magnitude', () => {
    expect(() => otavaChangePoints([1, Infinity, 2])).toThrow('series[1] is not a finite number');
    expect(() => otavaChangePoints([1, 2], { maxPValue: 1.5 })).toThrow('maxPValue must be in (0, 1]');
    expect(() => otavaChangePoints([1, 2], { minMagnitude: -1 })).toThrow('minMagnitude must be >= 0');
  });
});
