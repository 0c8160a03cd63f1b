import { InvalidInputError } from './errors';

/** The marker that stands for a stored secret in responses (the contracts' STORED_SECRET). */
const MARKER = '__stored__';

const isMap = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A copy with every non-empty secret field replaced by the marker. A secret field holding an
 * object (http headers) keeps its keys and has each non-empty value masked.
 */
export function maskSecrets(
  values: Readonly<Record<string, unknown>>,
  secretNames: readonly string[],
): Record<string, unknown> {
  const masked = { ...values };
  for (const name of secretNames) {
    const value = masked[name];
    if (isMap(value))
      masked[name] = Object.fromEntries(
        Object.entries(value).map(([key, entry]) => [
          key,
          entry !== undefined && entry !== '' ? MARKER : entry,
        ]),
      );
    else if (value !== undefined && value !== '') masked[name] = MARKER;
  }
  return masked;
}

/**
 * Puts the stored value back wherever the marker was sent for a secret field. `stored` is null
 * when nothing is stored (a create, or a change of type); the marker then has nothing to keep: 400.
 * In an object-valued secret the marker keeps the stored value of the same key (keys compared
 * without case, as header names are).
 */
export function restoreSecrets(
  incoming: Record<string, unknown>,
  stored: Readonly<Record<string, unknown>> | null,
  secretNames: readonly string[],
  field: string,
): void {
  for (const name of secretNames) {
    const value = incoming[name];
    if (isMap(value)) {
      const kept = stored?.[name];
      const keptMap = isMap(kept) ? kept : {};
      const restored: Record<string, unknown> = {};
      for (const [key, entry] of Object.entries(value)) {
        if (entry !== MARKER) {
          restored[key] = entry;
          continue;
        }
        const match = Object.keys(keptMap).find((candidate) => candidate.toLowerCase() === key.toLowerCase());
        if (match === undefined)
          throw new InvalidInputError(`${field}.${name}.${key}: there is no stored value to keep`);
        restored[key] = keptMap[match];
      }
      incoming[name] = restored;
      continue;
    }
    if (value !== MARKER) continue;
    const kept = stored?.[name];
    if (kept === undefined) throw new InvalidInputError(`${field}.${name}: there is no stored value to keep`);
    incoming[name] = kept;
  }
}
