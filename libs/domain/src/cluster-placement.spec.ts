import { type MemberRow, ownerOf } from './cluster-membership';
import { handOverFrom, viewsBetween } from './cluster-placement';

const row = (
  name: string,
  startedAt: number,
  lastSeenAt: number,
  stoppedAt: number | null = null,
): MemberRow => ({
  name,
  token: name,
  startedAt,
  lastSeenAt,
  stoppedAt,
});

const DEAD_AFTER = 5_000;
const PERIOD = 1_000;

describe('viewsBetween', () => {
  it('is one list while nobody joins, dies or leaves', () => {
    const rows = [row('a', 0, 99_800), row('b', 0, 99_900)];
    expect(viewsBetween(rows, 98_000, 100_000, DEAD_AFTER, PERIOD)).toEqual([['a', 'b']]);
  });

  it('holds the list before and after a newcomer activates', () => {
    const rows = [row('a', 0, 99_800), row('c', 98_500, 99_900)];
    expect(viewsBetween(rows, 98_000, 100_000, DEAD_AFTER, PERIOD)).toEqual([['a'], ['a', 'c']]);
    // Before it registered, it was no member even of a list of its own.
    expect(viewsBetween(rows, 98_000, 98_600, DEAD_AFTER, PERIOD)).toEqual([['a']]);
  });

  it('holds the list before and after a member dies or leaves', () => {
    const died = [row('a', 0, 99_800), row('b', 0, 94_500)];
    expect(viewsBetween(died, 98_000, 100_000, DEAD_AFTER, PERIOD)).toEqual([['a', 'b'], ['a']]);
    const left = [row('a', 0, 99_800), row('b', 0, 99_000, 99_000)];
    expect(viewsBetween(left, 98_000, 100_000, DEAD_AFTER, PERIOD)).toEqual([['a', 'b'], ['a']]);
  });
});

describe('handOverFrom', () => {
  const ids = Array.from({ length: 200 }, (_, i) => i + 1);
  const moving = ids.filter((id) => ownerOf(id, ['a']) === 'a' && ownerOf(id, ['a', 'c']) === 'c');

  it('probes at once when every list gives the sensor to this instance', () => {
    for (const id of ids.filter((i) => ownerOf(i, ['a', 'c']) === 'c'))
      expect(handOverFrom(id, 'c', ['a', 'c'], [['a', 'c']])).toBeNull();
  });

  it('waits for the owner under the oldest list while a newcomer activates', () => {
    expect(moving.length).toBeGreaterThan(0);
    for (const id of moving) expect(handOverFrom(id, 'c', ['a', 'c'], [['a'], ['a', 'c']])).toBe('a');
  });

  it('probes at once as the owner under the oldest list (it hands over when its own list changes)', () => {
    for (const id of moving) expect(handOverFrom(id, 'a', ['a'], [['a'], ['a', 'c']])).toBeNull();
  });

  it('counts from the first list that has members (a start before anyone was registered)', () => {
    for (const id of moving) expect(handOverFrom(id, 'c', ['a', 'c'], [[], ['a'], ['a', 'c']])).toBe('a');
  });

  it('does not wait for a first owner that is gone', () => {
    const fromB = ids.filter((id) => ownerOf(id, ['a', 'b']) === 'b');
    for (const id of fromB) expect(handOverFrom(id, 'a', ['a'], [['a', 'b'], ['a']])).toBeNull();
  });
});
