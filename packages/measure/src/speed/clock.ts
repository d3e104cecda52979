/**
 * How far past the run's anchor its clock's readings start. A reading is then over 2^31 from the first
 * request on, never one of V8's small integers, so the fields and code that hold readings are made for
 * doubles once, in the warm-up. Counted from the anchor itself, readings left the small-integer range
 * 1.07 s into a run, inside its measured window, where the read path's optimized code was thrown away
 * and compiled again ("not a Smi", "wrong map" in --trace-opt) on the client's one core.
 */
export const CLOCK_LEAD_US = 2_200_000;
const CLOCK_LEAD_NS = CLOCK_LEAD_US * 1000;

/** The run's clock: ns since its anchor plus CLOCK_LEAD_US, exact as a double for ~104 days. */
export function clockNs(anchorNs: bigint): number {
  return Number(process.hrtime.bigint() - anchorNs) + CLOCK_LEAD_NS;
}
