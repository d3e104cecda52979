import { useMemo, useState } from 'preact/hooks';
import { get, post, type PostBody, type Schemas } from '../api/client';
import { Picker } from '../components/picker';
import { Plot, themedAxis } from '../components/plot';
import { Empty, Show } from '../components/states';
import { href } from '../router';
import {
  cdfPlotData,
  comparisonQuery,
  comparisonRows,
  hasComparison,
  sideBody,
  sideFromQuery,
  type SideForm,
  type SideName,
} from '../shape/compare';
import { CONFIG_FIELDS } from '../shape/config';
import { formatTime } from '../shape/format';
import { useApi } from '../use-api';

type Comparison = Schemas['ComparisonDto'];
type Endpoint = Schemas['EndpointDto'];

function SideEditor({
  name,
  form,
  endpoints,
  onChange,
}: {
  name: SideName;
  form: SideForm;
  endpoints: readonly Endpoint[];
  onChange: (form: SideForm) => void;
}) {
  const set = (change: Partial<SideForm>) => onChange({ ...form, ...change });
  const text = (key: 'from' | 'to' | 'value' | 'runIds', label: string, placeholder: string) => (
    <label>
      {label}
      <input
        name={`${name}.${key}`}
        value={form[key]}
        placeholder={placeholder}
        onInput={(event) => set({ [key]: event.currentTarget.value })}
      />
    </label>
  );
  return (
    <fieldset class={`side ${name}`}>
      <legend>{name}</legend>
      <Picker
        name={`${name}.endpointId`}
        label="endpoint"
        value={form.endpointId}
        options={[
          { name: '', label: 'any' },
          ...endpoints.map((endpoint) => ({ name: endpoint.id, label: endpoint.name })),
        ]}
        onChange={(endpointId) => set({ endpointId })}
      />
      <div class="pair">
        <Picker
          name={`${name}.field`}
          label="configuration field"
          value={form.field}
          options={CONFIG_FIELDS}
          onChange={(field) => set({ field })}
        />
        {text('value', 'is', 'e.g. fp8 (empty: any)')}
      </div>
      <div class="pair">
        {text('from', 'from', 'default: 7 days ago')}
        {text('to', 'to', 'default: now')}
      </div>
      {text('runIds', 'or these run ids', 'comma separated; replaces the window')}
    </fieldset>
  );
}

function SideSummary({ name, side }: { name: SideName; side: Comparison['baseline'] }) {
  const config = Object.entries(side.servingConfig)
    .filter(([, values]) => values.length > 0)
    .map(([field, values]) => `${field} ${values.map((v) => (v === null ? 'unset' : String(v))).join('/')}`);
  return (
    <div class="card side-summary">
      <h3>{name}</h3>
      <p>
        {side.runs} runs, {side.requests} requests, {side.tokens} tokens
        {side.firstRunAt ? ` · ${formatTime(side.firstRunAt)} – ${formatTime(side.lastRunAt)}` : ''}
      </p>
      {config.length > 0 ? <p class="hint">{config.join(' · ')}</p> : null}
      {side.excludedSaturatedRuns > 0 ? (
        <p class="flag">{side.excludedSaturatedRuns} client-saturated run(s) left out</p>
      ) : null}
      {side.unmatchedRunIds.length > 0 ? (
        <p class="flag">Not measured runs of this side: {side.unmatchedRunIds.join(', ')}</p>
      ) : null}
    </div>
  );
}

/** Side colours of the distribution plot: a colour each, readable on both backgrounds. */
const SIDE_COLOURS = { baseline: '#1c7ed6', candidate: '#e8590c' } as const;

/** Both sides' ITL CDFs overlaid on a log x axis: where the curves part is where the sides differ. */
function Distributions({ distributions }: { distributions: NonNullable<Comparison['distributions']> }) {
  const plot = useMemo(() => cdfPlotData(distributions), [distributions]);
  if (!plot) return null;
  return (
    <section class="distributions">
      <h2>ITL distributions</h2>
      <Plot
        label="ITL distributions of both sides"
        height={280}
        data={plot.data}
        options={(theme) => ({
          scales: { x: { time: false, distr: 3 }, y: { range: [0, 1] } },
          axes: [
            themedAxis(theme, { label: `ITL (${distributions.unit}, log)` }),
            themedAxis(theme, { label: 'share of tokens ≤ ITL', size: 60 }),
          ],
          series: [
            {
              label: `ITL (${distributions.unit})`,
              value: (_: unknown, v: number | null) => (v === null ? '–' : `${Number(v.toPrecision(3))}`),
            },
            ...(['baseline', 'candidate'] as const).map((side, i) => ({
              label: plot.labels[i],
              stroke: SIDE_COLOURS[side],
              width: 2,
              spanGaps: true,
              points: { show: false },
              value: (_: unknown, v: number | null) =>
                v === null ? '–' : `${Number((v * 100).toPrecision(3))} %`,
            })),
          ],
        })}
      />
      <p class="hint">
        Each curve is the share of a side&apos;s tokens whose ITL is at most x, from its runs&apos; merged
        histograms (within 1/128 of exact); the log axis spreads out the tail, where stalls show.
      </p>
    </section>
  );
}

function ComparisonTable({ comparison }: { comparison: Comparison }) {
  const rows = comparisonRows(comparison.metrics);
  return (
    <>
      <p class="overall">
        Overall: <span class={`verdict ${comparison.verdict}`}>{comparison.verdict}</span>
      </p>
      <div class="cards two">
        <SideSummary name="baseline" side={comparison.baseline} />
        <SideSummary name="candidate" side={comparison.candidate} />
      </div>
      {comparison.reason ? <Empty>No comparison: {comparison.reason}.</Empty> : null}
      {rows.length > 0 ? (
        <div class="table-scroll">
          <table class="comparison">
            <thead>
              <tr>
                <th>metric</th>
                <th>verdict</th>
                <th>baseline</th>
                <th>candidate</th>
                <th>change</th>
                <th>{Math.round(comparison.confidence * 100)}% interval</th>
                <th>p</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.key}>
                  <td>{row.metric}</td>
                  <td>
                    <span class={`verdict ${row.verdict}`}>{row.verdict}</span>
                  </td>
                  <td>{row.baseline}</td>
                  <td>{row.candidate}</td>
                  <td>{row.change}</td>
                  <td class="interval">{row.interval}</td>
                  <td>{row.pValue}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {comparison.explanations.length > 0 ? (
        <div class="explanations">
          <h3>Why: the diagnostics that changed</h3>
          <ul>
            {comparison.explanations.map((change) => (
              <li key={change.metric}>
                {change.text}{' '}
                <span class="hint">
                  ({change.runs.baseline} vs {change.runs.candidate} runs,{' '}
                  {change.basis === 'rank-test'
                    ? `p ${change.pValue.toPrecision(2)}`
                    : 'separated, too few runs to test'}
                  )
                </span>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {comparison.distributions ? <Distributions distributions={comparison.distributions} /> : null}
      <p class="hint">
        Intervals: {comparison.iterations} bootstrap resamples of {comparison.resampling.unit} (
        {comparison.resampling.why}); p: two-sided Mann-Whitney U. A verdict needs the whole interval past the
        threshold.
      </p>
      {comparison.configDifferences.length > 0 ? (
        <p class="hint">
          Configurations differ in{' '}
          {comparison.configDifferences
            .map((d) => `${d.field} (${JSON.stringify(d.baseline)} → ${JSON.stringify(d.candidate)})`)
            .join(', ')}
          .
        </p>
      ) : null}
      {!comparison.workload.same ? (
        <p class="flag big">
          The two sides ran different workloads (
          {comparison.workload.differences.map((d) => d.field).join(', ')}): their figures are not like for
          like.
        </p>
      ) : null}
      {comparison.notes.length > 0 ? (
        <ul class="notes">
          {comparison.notes.map((note) => (
            <li key={note}>{note}</li>
          ))}
        </ul>
      ) : null}
    </>
  );
}

/** Two sides (configuration values, windows or runs) -> POST /comparisons -> the table. */
export function ComparePage({ query }: { query: URLSearchParams }) {
  const search = query.toString();
  const [sides, setSides] = useState(() => ({
    baseline: sideFromQuery(query, 'baseline'),
    candidate: sideFromQuery(query, 'candidate'),
  }));
  const [includeSaturated, setIncludeSaturated] = useState(query.get('includeSaturated') === 'true');
  const endpoints = useApi((signal) => get('/endpoints', { query: { limit: 200 }, signal }), []);
  const comparison = useApi(
    async (signal) => {
      if (!hasComparison(query)) return null;
      const saturated = query.get('includeSaturated') === 'true';
      const body = {
        baseline: sideBody(sideFromQuery(query, 'baseline'), saturated),
        candidate: sideBody(sideFromQuery(query, 'candidate'), saturated),
      };
      // Resample, iterations and seed keep the API's defaults (the generated type calls them required).
      return post('/comparisons', body as PostBody<'/comparisons'>, { signal });
    },
    [search],
  );
  return (
    <>
      <header class="page-header">
        <h1>Compare</h1>
        <p class="hint">
          Each side is the runs of an endpoint and configuration value over a window, or a list of runs. The
          change of each metric comes with its bootstrap interval and a verdict.
        </p>
      </header>
      <form
        class="compare-form"
        onSubmit={(event) => {
          event.preventDefault();
          const next = comparisonQuery(sides);
          if (includeSaturated) next.includeSaturated = 'true';
          location.hash = href.compare(next);
        }}
      >
        <div class="cards two">
          {(['baseline', 'candidate'] as const).map((name) => (
            <SideEditor
              key={name}
              name={name}
              form={sides[name]}
              endpoints={endpoints.state === 'ready' ? endpoints.data.items : []}
              onChange={(form) => setSides((current) => ({ ...current, [name]: form }))}
            />
          ))}
        </div>
        <div class="pickers">
          <label class="check">
            <input
              type="checkbox"
              name="includeSaturated"
              checked={includeSaturated}
              onChange={(event) => setIncludeSaturated(event.currentTarget.checked)}
            />
            include runs whose client was saturated
          </label>
          <button type="submit">Compare</button>
        </div>
      </form>
      <section>
        <Show loaded={comparison} what="the comparison">
          {(result) =>
            result === null ? (
              <Empty>Choose two sides and press Compare.</Empty>
            ) : (
              <ComparisonTable comparison={result} />
            )
          }
        </Show>
      </section>
    </>
  );
}
