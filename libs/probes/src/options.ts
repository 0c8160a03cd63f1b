/**
 * Forgiving option accessors for running probes: a missing option, or one of the wrong type (a
 * count that arrives as a string), falls back to the default instead of becoming zero. Strict
 * checking is the job of each probe's `validate`.
 */
export type Options = Readonly<Record<string, unknown>>;

export function intOption(
  options: Options,
  name: string,
  fallback: number,
  min = -Infinity,
  max = Infinity,
): number {
  const value = options[name];
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max
    ? value
    : fallback;
}

export function numberOption(options: Options, name: string, fallback: number | null): number | null {
  const value = options[name];
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

export function stringOption(options: Options, name: string, fallback: string): string {
  const value = options[name];
  return typeof value === 'string' && value !== '' ? value : fallback;
}

export function boolOption(options: Options, name: string, fallback: boolean): boolean {
  const value = options[name];
  return typeof value === 'boolean' ? value : fallback;
}

export function stringMapOption(options: Options, name: string): Record<string, string> {
  const value = options[name];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

/** Default per-probe time-out in seconds (decisions.md); never more than the interval. */
export const DEFAULT_TIMEOUT_SECONDS = 10;

export function timeoutMs(options: Options, intervalSeconds: number): number {
  return Math.min(intOption(options, 'timeout', DEFAULT_TIMEOUT_SECONDS, 1, 86400), intervalSeconds) * 1000;
}
