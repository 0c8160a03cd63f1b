import { activeMembers, firstSlot, loadOf, type MemberRow, ownerOf } from './cluster-membership';

const ids = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe('ownerOf (rendezvous hashing)', () => {
  it('gives every sensor to exactly one member, the same answer whatever the list order', () => {
    for (const id of ids(500)) {
      const owner = ownerOf(id, ['a', 'b', 'c']);
      expect(['a', 'b', 'c']).toContain(owner);
      expect(ownerOf(id, ['c', 'a', 'b'])).toBe(owner);
    }
    expect(ownerOf(1, [])).toBeNull();
  });

  it.each([
    [['node-1', 'node-2', 'node-3'], 300],
    [['a', 'b', 'c'], 300],
    [['monitor-east:8080', 'monitor-west:8080', 'monitor-north:8080'], 300],
    [['i1', 'i2', 'i3'], 10_000],
  ])('splits sensors evenly among %j (%i sensors: each within ±20 %% of its share)', (members, count) => {
    const load = loadOf(ids(count), members);
    for (const share of load.values()) {
      expect(share).toBeGreaterThanOrEqual((count / members.length) * 0.8);
      expect(share).toBeLessThanOrEqual((count / members.length) * 1.2);
    }
  });

  it('moves only the leaver’s sensors when a member leaves, and only to the newcomer when one joins', () => {
    const before = ['a', 'b', 'c'];
    for (const id of ids(1000)) {
      const owner = ownerOf(id, before)!;
      const afterLeave = ownerOf(id, ['a', 'b']);
      if (owner !== 'c') expect(afterLeave).toBe(owner);
      const afterJoin = ownerOf(id, [...before, 'd']);
      expect([owner, 'd']).toContain(afterJoin);
    }
  });
});

describe('activeMembers', () => {
  const row = (name: string, startedAt: number, lastSeenAt: number): MemberRow => ({
    name,
    token: name,
    startedAt,
    lastSeenAt,
    stoppedAt: null,
  });

  it('keeps members heard from within dead_after and joined at least the activation delay ago', () => {
    const rows = [row('b', 0, 9_000), row('a', 0, 10_000), row('dead', 0, 4_999), row('new', 9_500, 10_000)];
    expect(activeMembers(rows, 20_000, 15_000, 11_000)).toEqual(['a', 'b']);
    expect(activeMembers(rows, 20_000, 15_000, 0)).toEqual(['a', 'b', 'new']);
    expect(activeMembers(rows, 19_999, 15_000, 0)).toEqual(['a', 'b', 'dead', 'new']);
  });

  it('leaves out an instance that stopped cleanly, at once', () => {
    const rows = [row('a', 0, 10_000), { ...row('b', 0, 10_000), stoppedAt: 9_000 }];
    expect(activeMembers(rows, 10_000, 15_000, 0)).toEqual(['a']);
  });

  it('takes the alive members at once when none has waited its activation (all starting together)', () => {
    const rows = [row('a', 10_000, 10_000), row('b', 10_100, 10_100)];
    expect(activeMembers(rows, 10_200, 15_000, 3_000)).toEqual(['a', 'b']);
  });
});

describe('firstSlot', () => {
  it('continues the old schedule at the first slot not before the given time', () => {
    expect(firstSlot(1_000, 10_000, 5_000)).toBe(11_000);
    expect(firstSlot(1_000, 10_000, 11_000)).toBe(11_000);
    expect(firstSlot(1_000, 10_000, 11_001)).toBe(21_000);
    expect(firstSlot(1_000, 10_000, 45_000)).toBe(51_000);
  });

  it('never gives a slot less than an interval after the last run', () => {
    expect(firstSlot(1_000, 10_000, 0)).toBe(11_000);
  });

  it('starts a sensor with no known run one interval on (its old owner may have run it unseen)', () => {
    expect(firstSlot(null, 10_000, 5_000)).toBe(15_000);
  });
});
