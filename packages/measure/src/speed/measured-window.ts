import { channel } from 'node:diagnostics_channel';

/**
 * Where a run's measured window starts and ends, published for tools that watch what V8 does inside it
 * (speed/deopt.spec.ts reads --trace-deopt between the two). Nothing is published without a subscriber.
 */
export const MEASURED_WINDOW_CHANNEL = 'teapot:measure:window';

/** What is published: the window's edge, and the run's target, which tells a run from its rehearsals. */
export interface MeasuredWindowEdge {
  edge: 'start' | 'end';
  baseUrl: string;
}

const measuredWindow = channel(MEASURED_WINDOW_CHANNEL);

export function announceWindowEdge(edge: MeasuredWindowEdge['edge'], baseUrl: string): void {
  if (measuredWindow.hasSubscribers) measuredWindow.publish({ edge, baseUrl } satisfies MeasuredWindowEdge);
}
