import { ViewCache } from './view-cache';

describe('ViewCache', () => {
  let now = 0;
  let computed: string[] = [];
  let release: (() => void)[] = [];
  const cache = () =>
    new ViewCache<{ key: string; n: number; sensors: Set<number> }>(
      (key) => {
        computed.push(key);
        const n = computed.length;
        if (key === 'unknown') return Promise.resolve(null);
        return new Promise((resolve) => release.push(() => resolve({ key, n, sensors: new Set([1, 2]) })));
      },
      (view) => view.sensors,
      () => now,
      10_000,
    );

  beforeEach(() => {
    now = 1_000_000;
    computed = [];
    release = [];
  });

  it('shares one computation between concurrent misses and reuses it for 10 s', async () => {
    const c = cache();
    const a = c.get('p');
    const b = c.get('p');
    expect(computed).toEqual(['p']);
    release.forEach((r) => r());
    expect(await a).toBe(await b);
    now += 9_999;
    expect((await c.get('p'))!.n).toBe(1);
    now += 1;
    // Aged: the old view answers while the next one is computed, which then takes over.
    const later = c.get('p');
    expect((await later)!.n).toBe(1);
    expect((await c.get('p'))!.n).toBe(1);
    expect(computed).toHaveLength(2);
    release.forEach((r) => r());
    await new Promise((resolve) => setImmediate(resolve));
    expect((await c.get('p'))!.n).toBe(2);
    // Invalidated: nobody gets the old view any more, they wait for the new one.
    now += 10_000;
    expect((await c.get('p'))!.n).toBe(2);
    c.invalidateSensor(1);
    const waited = c.get('p');
    release.forEach((r) => r());
    expect((await waited)!.n).toBe(4);
  });

  it('drops the views showing a sensor at once, and those still computing', async () => {
    const c = cache();
    const first = c.get('p');
    release.forEach((r) => r());
    await first;
    c.invalidateSensor(3);
    expect(c.size).toBe(1);
    c.invalidateSensor(2);
    expect(c.size).toBe(0);
    const pending = c.get('p');
    c.invalidateSensor(99);
    expect(c.size).toBe(0);
    const next = c.get('p');
    release.forEach((r) => r());
    expect((await pending)!.n).toBe(2);
    expect((await next)!.n).toBe(3);
  });

  it('keeps nothing for an unknown key', async () => {
    const c = cache();
    expect(await c.get('unknown')).toBeNull();
    expect(c.size).toBe(0);
  });
});
