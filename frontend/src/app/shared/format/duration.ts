const UNITS = [
  { label: 'd', seconds: 86_400 },
  { label: 'h', seconds: 3_600 },
  { label: 'min', seconds: 60 },
  { label: 's', seconds: 1 },
] as const;

/**
 * A duration in seconds as its two largest units, for people: "45 s", "12 min 5 s", "3 h 12 min",
 * "2 d 4 h". A zero second unit is left out ("3 h" rather than "3 h 0 min").
 */
export function formatDuration(totalSeconds: number): string {
  let rest = Number.isFinite(totalSeconds) ? Math.max(0, Math.floor(totalSeconds)) : 0;
  const parts: string[] = [];
  for (const unit of UNITS) {
    const count = Math.floor(rest / unit.seconds);
    rest -= count * unit.seconds;
    if (parts.length === 0 && count === 0) continue;
    if (count > 0) parts.push(`${count} ${unit.label}`);
    if (parts.length === 2 || (parts.length === 1 && count === 0)) break;
  }
  return parts.length > 0 ? parts.join(' ') : '0 s';
}

/** The same duration as an ISO 8601 duration, for the `datetime` attribute of `<time>`. */
export function isoDuration(totalSeconds: number): string {
  const seconds = Number.isFinite(totalSeconds) ? Math.max(0, Math.floor(totalSeconds)) : 0;
  return `PT${seconds}S`;
}
