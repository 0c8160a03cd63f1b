/** Epoch milliseconds as the API shows time: ISO 8601 UTC, or null when there is none. */
export const isoOrNull = (ms: number | null): string | null =>
  ms === null ? null : new Date(ms).toISOString();
