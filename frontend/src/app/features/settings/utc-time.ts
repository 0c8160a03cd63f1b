// Instants on the settings page, which shows and takes them in UTC.

/** `2026-11-22T10:00` typed into a datetime-local field, read as UTC, as ISO 8601. */
export function utcInputToIso(value: string): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(value)) return undefined;
  const date = new Date(`${value.length === 16 ? `${value}:00` : value}Z`);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** An instant as `2026-11-22 10:00 UTC`. */
export function utcText(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
