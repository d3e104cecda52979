import { z } from 'zod';

/** A whole-number variable from `min` to `max`, `fallback` when unset. */
export function wholeNumber(min: number, max: number, fallback: number) {
  return z.coerce
    .number({ error: 'must be a number' })
    .int('must be a whole number')
    .min(min, `must be ${min}-${max}`)
    .max(max, `must be ${min}-${max}`)
    .default(fallback);
}

/**
 * A transform reading a variable's text with `parse`, whose thrown message is reported as the
 * variable's problem: `z.string().transform(parsedBy(parseRetrySchedule))`.
 */
export function parsedBy<Text, Value>(parse: (text: Text) => Value) {
  return (text: Text, ctx: z.RefinementCtx): Value => {
    try {
      return parse(text);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as Error).message });
      return z.NEVER;
    }
  };
}
