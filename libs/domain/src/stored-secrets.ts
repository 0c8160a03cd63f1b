import { InvalidInputError } from './errors';

/** The marker that stands for a stored secret in responses (the contracts' STORED_SECRET). */
const MARKER = '__stored__';

/** A copy with every non-empty secret field replaced by the marker. */
export function maskSecrets(
  values: Readonly<Record<string, unknown>>,
  secretNames: readonly string[],
): Record<string, unknown> {
  const masked = { ...values };
  for (const name of secretNames)
    if (masked[name] !== undefined && masked[name] !== '') masked[name] = MARKER;
  return masked;
}

/**
 * Puts the stored value back wherever the marker was sent for a secret field. `stored` is null
 * when nothing is stored (a create, or a change of type); the marker then has nothing to keep: 400.
 */
export function restoreSecrets(
  incoming: Record<string, unknown>,
  stored: Readonly<Record<string, unknown>> | null,
  secretNames: readonly string[],
  field: string,
): void {
  for (const name of secretNames) {
    if (incoming[name] !== MARKER) continue;
    const kept = stored?.[name];
    if (kept === undefined) throw new InvalidInputError(`${field}.${name}: there is no stored value to keep`);
    incoming[name] = kept;
  }
}
