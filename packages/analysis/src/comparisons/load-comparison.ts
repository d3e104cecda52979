import { METRICS } from '@teapot/contracts';
import type { AnalysisStores } from '@teapot/db';
import { AnalysisInputError } from '../errors';
import { selectRuns, type RunSelection, type SelectedRuns } from '../selection';
import { resamplePlan, storedHistogramMetrics } from './bootstrap-plan';
import { compare, type Comparison, type ComparisonOptions, type LoadedSide } from './compare';
import { checkComparisonQuery, type CheckedComparison, type ComparisonQuery } from './comparison-query';

/** Each side reads at most this many runs (histograms and summaries). */
export const MAX_COMPARISON_RUNS = 2_000;

export type ComparisonStores = Pick<AnalysisStores, 'runs' | 'histograms' | 'requests' | 'profiles'>;

/** Both sides of a checked comparison as loaded, and the options compare() takes with them. */
export interface LoadedComparison {
  baseline: LoadedSide;
  candidate: LoadedSide;
  options: ComparisonOptions;
}

/**
 * Checks a comparison query, loads both sides through the stores and compares them: bad input is an
 * AnalysisInputError naming the parameter, before or while the sides are selected.
 */
export async function compareRuns(stores: ComparisonStores, query: ComparisonQuery): Promise<Comparison> {
  const { baseline, candidate, options } = await loadComparison(stores, checkComparisonQuery(query));
  return compare(baseline, candidate, options);
}

/**
 * Reads what a comparison needs, each side's stored histograms once: the runs of each side, then (when
 * both have runs) their details and profiles' thresholds, and the samples the bootstrap will redraw.
 */
export async function loadComparison(
  stores: ComparisonStores,
  checked: CheckedComparison,
): Promise<LoadedComparison> {
  const { baseline: baselineSelection, candidate: candidateSelection, ...rest } = checked;
  const selected = {
    baseline: await selectSide(stores, baselineSelection, 'baseline'),
    candidate: await selectSide(stores, candidateSelection, 'candidate'),
  };
  const bare = (side: SelectedRuns): LoadedSide => ({ ...side, details: new Map(), histograms: [] });
  if (selected.baseline.runs.length === 0 || selected.candidate.runs.length === 0) {
    return {
      baseline: bare(selected.baseline),
      candidate: bare(selected.candidate),
      options: { ...rest, profileThresholds: [] },
    };
  }
  const runs = [...selected.baseline.runs, ...selected.candidate.runs];
  const profileIds = [...new Set(runs.map((run) => run.profileId).filter((id): id is string => id !== null))];
  const profileThresholds = await stores.profiles.comparisonThresholds(profileIds);
  const { unit } = resamplePlan(checked.resample, selected.baseline.runs, selected.candidate.runs);
  const distributionMetrics = checked.rows
    .map((row) => row.metric)
    .filter((metric) => METRICS[metric].kind === 'distribution');
  const metrics = storedHistogramMetrics(distributionMetrics, unit);
  const load = async (side: SelectedRuns): Promise<LoadedSide> => {
    const ids = side.runs.map((run) => run.id);
    return {
      ...side,
      details: await stores.runs.details(ids),
      diagnostics: await stores.runs.diagnostics(ids),
      histograms: await stores.histograms.nonEmpty(ids, metrics),
      ...(unit === 'requests' && distributionMetrics.length > 0
        ? { requests: await stores.requests.measured(ids) }
        : {}),
    };
  };
  return {
    baseline: await load(selected.baseline),
    candidate: await load(selected.candidate),
    options: { ...rest, profileThresholds },
  };
}

async function selectSide(
  stores: ComparisonStores,
  selection: RunSelection,
  name: 'baseline' | 'candidate',
): Promise<SelectedRuns> {
  let selected;
  try {
    selected = await selectRuns(stores.runs, selection);
  } catch (error) {
    if (error instanceof AnalysisInputError)
      throw new AnalysisInputError(`${name}.${error.parameter}`, error.problem);
    throw error;
  }
  if (selected.runs.length > MAX_COMPARISON_RUNS)
    throw new AnalysisInputError(
      `${name}.from`,
      `selects ${selected.runs.length} runs, more than ${MAX_COMPARISON_RUNS}: narrow the window or the filters`,
    );
  return selected;
}
