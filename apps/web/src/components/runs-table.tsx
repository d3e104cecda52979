import type { Schemas } from '../api/client';
import { href } from '../router';
import { formatMs, formatRate, formatTime } from '../shape/format';

export function RunsTable({ runs }: { runs: ReadonlyArray<Schemas['RunDto']> }) {
  return (
    <div class="table-scroll">
      <table class="runs">
        <thead>
          <tr>
            <th>queued</th>
            <th>status</th>
            <th>trigger</th>
            <th>ITL P50</th>
            <th>ITL P99</th>
            <th>TPOT P50</th>
            <th>TTFT P99</th>
            <th>tokens/s</th>
            <th>failed</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => (
            <tr key={run.id}>
              <td>
                <a href={href.run(run.id)}>{formatTime(run.queuedAt)}</a>
              </td>
              <td>
                <span class={`status ${run.status}`}>{run.status}</span>
                {run.clientSaturated ? (
                  <span class="flag" title="The client was the bottleneck: not a result">
                    client saturated
                  </span>
                ) : null}
              </td>
              <td>{run.trigger}</td>
              <td>{formatMs(run.itlP50Ms)}</td>
              <td>{formatMs(run.itlP99Ms)}</td>
              <td>{formatMs(run.tpotP50Ms)}</td>
              <td>{formatMs(run.ttftP99Ms)}</td>
              <td>{formatRate(run.outputTokensPerS, '')}</td>
              <td>{run.requestsFailed ?? '–'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
