/** 3 significant figures, so 0.812 ms and 1250 ms both read at a glance. */
export function formatMs(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  return `${value >= 100 ? Math.round(value) : Number(value.toPrecision(3))} ms`;
}

export function formatRate(value: number | null | undefined, unit: string): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  return `${value >= 100 ? Math.round(value) : Number(value.toPrecision(3))} ${unit}`;
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '–';
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'medium' });
}

/** "endpoint: connection refused": a stored error with its class, or nothing. */
export function errorText(error: string | null, errorClass: string | null): string {
  if (!error) return '';
  return errorClass ? `${errorClass}: ${error}` : error;
}
