import type { ServerResponse } from 'node:http';

/**
 * A hostile server's answer: `totalBytes` of `line` repeated, written as fast as the client reads and
 * stopped when the client hangs up, so a test can check that a reader gives up at its cap.
 */
export function writeHugeBody(res: ServerResponse, line: string, totalBytes: number): void {
  const chunk = Buffer.from(line.repeat(Math.max(1, Math.floor(65_536 / line.length))));
  let sent = 0;
  const pump = (): void => {
    while (sent < totalBytes) {
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    res.end();
  };
  res.on('close', () => (sent = Infinity));
  pump();
}
