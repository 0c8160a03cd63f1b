import { newPushToken } from '@monitor/probes';
import type { RuntimeEntry } from '../scheduler/runtime-entry';
import { PushTokenIndex } from './push-tokens';

const pushEntry = (id: number, token: string): RuntimeEntry =>
  ({ definition: { id, type: 'push', enabled: true, options: { token } } }) as unknown as RuntimeEntry;

/** The runtime's definitions as the index sees them: counted passes, a version that grows with changes. */
class Definitions {
  readonly entries = new Map<number, RuntimeEntry>();
  passes = 0;
  version = 0;

  set(entry: RuntimeEntry): void {
    this.entries.set(entry.definition.id, entry);
    this.version++;
  }

  remove(id: number): void {
    this.entries.delete(id);
    this.version++;
  }

  index(): PushTokenIndex {
    return new PushTokenIndex(
      () => {
        this.passes++;
        return this.entries.values();
      },
      (id) => this.entries.get(id),
      () => this.version,
    );
  }
}

describe('push token index', () => {
  it('answers a flood of unknown tokens without passing over the sensors again', () => {
    const defs = new Definitions();
    const known = newPushToken();
    defs.set(pushEntry(1, known));
    const index = defs.index();
    expect(index.find(known)?.definition.id).toBe(1);
    expect(defs.passes).toBe(1);
    for (let i = 0; i < 10_000; i++) expect(index.find(newPushToken())).toBeUndefined();
    expect(defs.passes).toBe(1);
    expect(index.find(known)?.definition.id).toBe(1);
    expect(defs.passes).toBe(1);
  });

  it('learns a token added after it was built, on whatever path the definition arrived', () => {
    const defs = new Definitions();
    const index = defs.index();
    const later = newPushToken();
    expect(index.find(later)).toBeUndefined();
    defs.set(pushEntry(2, later));
    expect(index.find(later)?.definition.id).toBe(2);
    const passes = defs.passes;
    for (let i = 0; i < 100; i++) index.find(newPushToken());
    expect(defs.passes).toBe(passes);
  });

  it('misses a rotated or deleted token at once and finds the new one', () => {
    const defs = new Definitions();
    const old = newPushToken();
    defs.set(pushEntry(3, old));
    const index = defs.index();
    expect(index.find(old)?.definition.id).toBe(3);
    const rotated = newPushToken();
    defs.set(pushEntry(3, rotated));
    expect(index.find(old)).toBeUndefined();
    expect(index.find(rotated)?.definition.id).toBe(3);
    defs.remove(3);
    expect(index.find(rotated)).toBeUndefined();
  });
});
