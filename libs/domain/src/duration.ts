const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };

/**
 * Parses a retention-style duration: a bare number of days (`7`), or a number with a unit
 * (`36h`, `7d`, `2w`, `90m`, `30s`). Returns whole seconds, or null when the text is not a duration.
 */
export function parseDurationSeconds(input: unknown): number | null {
  if (typeof input === 'number') {
    return Number.isFinite(input) && input > 0 ? Math.round(input * UNIT_SECONDS.d) : null;
  }
  if (typeof input !== 'string') return null;
  const match = /^\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*$/i.exec(input);
  if (!match) return null;
  const amount = Number(match[1]);
  const unit = (match[2] || 'd').toLowerCase();
  const seconds = Math.round(amount * UNIT_SECONDS[unit]);
  return seconds > 0 ? seconds : null;
}

/** Renders seconds in the largest exact unit up to days, e.g. 604800 → "7d", 129600 → "36h". */
export function formatDuration(seconds: number): string {
  for (const unit of ['d', 'h', 'm'] as const) {
    if (seconds % UNIT_SECONDS[unit] === 0) return `${seconds / UNIT_SECONDS[unit]}${unit}`;
  }
  return `${seconds}s`;
}
