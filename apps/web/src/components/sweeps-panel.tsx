import { useMemo, useState } from 'preact/hooks';
import { get, type Schemas } from '../api/client';
import { href } from '../router';
import { formatTime } from '../shape/format';
import {
  costText,
  formatLoad,
  frontierOf,
  sloGuides,
  type OverlaySeries,
  sweepConfigName,
  sweepLabel,
} from '../shape/sweep';
import { useApi } from '../use-api';
import { Empty, Show } from './states';
import { FrontierOverlay, GuideHint } from './sweep-plots';

const RECENT_SWEEPS = 20;
const COLUMNS = ['overlay', 'queued', 'configuration', 'status', 'capacity', 'cost at capacity'];

type ServingConfig = Schemas['ServingConfigDto'];

/** The picked sweeps' frontiers on one plot, each labelled by the configuration it measured. */
function Overlay({ ids, configs }: { ids: readonly string[]; configs: readonly ServingConfig[] }) {
  const loaded = useApi(
    (signal) => Promise.all(ids.map((id) => get('/sweeps/{id}', { path: { id }, signal }))),
    [ids.join(',')],
  );
  return (
    <Show loaded={loaded} what="the picked sweeps">
      {(sweeps) => <OverlayFigure sweeps={sweeps} configs={configs} />}
    </Show>
  );
}

function OverlayFigure({
  sweeps,
  configs,
}: {
  sweeps: ReadonlyArray<Schemas['SweepDetailDto']>;
  configs: readonly ServingConfig[];
}) {
  const series = useMemo<OverlaySeries[]>(
    () =>
      sweeps.map((sweep) => ({
        label: sweepLabel(sweep, configs),
        guides: sloGuides(sweep.slo),
        ...frontierOf(sweep),
      })),
    [sweeps, configs],
  );
  if (series.every((s) => s.frontier.length === 0))
    return <Empty>None of these sweeps has a measured point.</Empty>;
  return (
    <>
      <FrontierOverlay series={series} />
      <p class="hint">
        Output tokens/s per user against per GPU, a line per sweep through its frontier; the large ring on
        each is the point measured at its capacity. Filled: the point met its sweep&apos;s SLO; hollow: it
        missed. {series.some((s) => s.guides.length > 0) ? <GuideHint /> : null}
      </p>
    </>
  );
}

/** An endpoint's recent sweeps; ticking two or more overlays their frontiers. */
export function SweepsPanel({
  endpointId,
  configs,
}: {
  endpointId: string;
  configs: readonly ServingConfig[];
}) {
  const [picked, setPicked] = useState<string[]>([]);
  const loaded = useApi(
    (signal) => get('/sweeps', { query: { endpointId, limit: RECENT_SWEEPS }, signal }),
    [endpointId],
  );
  const toggle = (id: string, on: boolean) =>
    setPicked((current) => (on ? [...current, id] : current.filter((other) => other !== id)));
  return (
    <section class="sweeps">
      <h2>Sweeps</h2>
      <Show loaded={loaded} what="sweeps">
        {(page) =>
          page.items.length === 0 ? (
            <Empty>No sweep of this endpoint yet.</Empty>
          ) : (
            <>
              <div class="table-scroll">
                <table class="sweep-list">
                  <thead>
                    <tr>
                      {COLUMNS.map((title) => (
                        <th key={title}>{title}</th>
                      ))}
                    </tr>
                  </thead>
                  <tbody>
                    {page.items.map((sweep) => (
                      <tr key={sweep.id}>
                        <td>
                          <input
                            type="checkbox"
                            name="overlay"
                            value={sweep.id}
                            aria-label={`overlay ${sweepLabel(sweep, configs)}`}
                            checked={picked.includes(sweep.id)}
                            onChange={(event) => toggle(sweep.id, event.currentTarget.checked)}
                          />
                        </td>
                        <td>
                          <a href={href.sweep(sweep.id)}>{formatTime(sweep.queuedAt)}</a>
                        </td>
                        <td>{sweepConfigName(sweep, configs)}</td>
                        <td>
                          <span class={`status ${sweep.status}`}>{sweep.status}</span>
                        </td>
                        <td>{formatLoad(sweep.capacity, sweep.unit)}</td>
                        <td>{costText(sweep)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              {picked.length >= 2 ? (
                <Overlay ids={picked} configs={configs} />
              ) : (
                <p class="hint">Tick two or more sweeps to draw their frontiers on one plot.</p>
              )}
            </>
          )
        }
      </Show>
    </section>
  );
}
