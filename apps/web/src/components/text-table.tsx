/** Cells of one row, by position (a row's cells never reorder). */
const cellsOf = (cells: string[]) => cells.map((cell, i) => <td key={i}>{cell}</td>);

/** A plain table of text cells: a header row, then one row per entry (the first cell is its key). */
export function TextTable({
  headers,
  rows,
  className,
}: {
  headers: string[];
  rows: string[][];
  className: string;
}) {
  const head = headers.map((header) => <th key={header}>{header}</th>);
  return (
    <table class={className}>
      <thead>
        <tr>{head}</tr>
      </thead>
      <tbody>
        {rows.map((cells) => (
          <tr key={cells[0]}>{cellsOf(cells)}</tr>
        ))}
      </tbody>
    </table>
  );
}
