import { timingSafeEqual } from 'node:crypto';
import { isPushToken } from '@monitor/probes';
import type { RuntimeEntry } from '../scheduler/runtime-entry';

const holds = (entry: RuntimeEntry | undefined, token: string): entry is RuntimeEntry => {
  const stored = entry?.definition.type === 'push' ? entry.definition.options.token : undefined;
  if (typeof stored !== 'string' || stored.length !== token.length) return false;
  return timingSafeEqual(Buffer.from(stored), Buffer.from(token));
};

/**
 * Token → push sensor, read from the runtime's definitions (which every create, change, delete,
 * restore and other instance's change updates). A hit is checked against the definition itself,
 * so a rotated or deleted token misses at once. The index is rebuilt (one pass over the sensors)
 * only when a miss finds the definitions changed since the last pass: a flood of made-up tokens
 * costs one map lookup each, never a pass.
 */
export class PushTokenIndex {
  private index = new Map<string, number>();
  private builtAt: number | null = null;

  constructor(
    private readonly entries: () => Iterable<RuntimeEntry>,
    private readonly get: (id: number) => RuntimeEntry | undefined,
    /** Grows whenever a definition is added, replaced or removed. */
    private readonly version: () => number,
  ) {}

  find(token: string): RuntimeEntry | undefined {
    if (!isPushToken(token)) return undefined;
    const known = this.lookup(token);
    if (known) return known;
    const version = this.version();
    if (version === this.builtAt) return undefined;
    this.rebuild(version);
    return this.lookup(token);
  }

  private lookup(token: string): RuntimeEntry | undefined {
    const id = this.index.get(token);
    const entry = id === undefined ? undefined : this.get(id);
    return holds(entry, token) ? entry : undefined;
  }

  private rebuild(version: number): void {
    const index = new Map<string, number>();
    for (const { definition } of this.entries()) {
      const token = definition.type === 'push' ? definition.options.token : undefined;
      if (typeof token === 'string') index.set(token, definition.id);
    }
    this.index = index;
    this.builtAt = version;
  }
}
