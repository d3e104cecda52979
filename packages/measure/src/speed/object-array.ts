/**
 * An empty array already of V8's generic elements kind. A `[]` (a class field's too) starts with
 * small-integer elements and changes kind on its first push of an object, every time. Code V8 optimized
 * on the warm-up's rehearsals, whose arrays had made that change long before, then met the run's own
 * arrays still in the first kind and deoptimized inside the measured window: --trace-deopt at 1024
 * streams named "not a Smi" on the pool's queue, the send pacer's, the scratch shelf's free list and the
 * run's records. Born generic, an array keeps one map from its first use on.
 */
export function objectArray<T>(): T[] {
  const array = [null] as unknown[];
  array.pop();
  return array as T[];
}
