import { INITIAL_STATE, type MemberRow, ownerOf } from '@monitor/domain';
import { Subject } from 'rxjs';
import type { MembershipChange, Release } from '../cluster/membership.service';
import type { RuntimeEntry } from './runtime-entry';
import { quietLogger, testDefinition } from './scheduler.fixtures';
import { type HandoverLoops, type HandoverMembership, SensorHandover } from './sensor-handover';

const PERIOD = 1000;

const entry = (id: number, lastCheckedAt: number | null = null): RuntimeEntry => ({
  definition: testDefinition(id),
  state: { ...INITIAL_STATE },
  message: '',
  lastCheckedAt,
  latencyMs: null,
  statusChangedAt: null,
  sparkline: [],
  recent: '',
  lastResult: null,
});

class FakeMembership {
  readonly changes = new Subject<MembershipChange>();
  readonly releases = new Subject<Release>();
  readonly periodMs = PERIOD;
  readonly deadAfterMs = 5 * PERIOD;
  readonly self = { name: 'a' };
  members: readonly string[] = ['a'];
  rows: MemberRow[] = [];
  released: { members: readonly string[]; agoMs: number }[] = [];
  free: number | null = null;

  snapshot() {
    return { now: Date.now(), rows: this.rows };
  }
  dbTime(): number {
    return Date.now();
  }
  freeSince(): number | null {
    return this.free;
  }
  release(members: readonly string[], agoMs: number): Promise<void> {
    this.released.push({ members, agoMs });
    return Promise.resolve();
  }

  /** The members change from `before` to `after`. */
  change(after: string[], gone: string[] = []): void {
    const before = this.members;
    this.members = after;
    this.changes.next({ before, after, gone: new Set(gone) });
  }
}

class FakeRuntime {
  readonly entries = new Map<number, RuntimeEntry>();
  refreshed: number[][] = [];
  flushes = 0;

  get = (id: number) => this.entries.get(id);
  all = () => this.entries.values();
  flush(): Promise<void> {
    this.flushes++;
    return Promise.resolve();
  }
  refresh(ids: readonly number[]): Promise<void> {
    this.refreshed.push([...ids]);
    return Promise.resolve();
  }
}

class FakeLoops implements HandoverLoops {
  isStarted = true;
  stopped: number[] = [];
  continued: { ids: number[]; lastRuns: Map<number, number | null>; since: number }[] = [];

  stopLoop(id: number): void {
    this.stopped.push(id);
  }
  continueLoops(ids: readonly number[], lastRuns: ReadonlyMap<number, number | null>, since: number): void {
    this.continued.push({ ids: [...ids], lastRuns: new Map(lastRuns), since });
  }
}

/** Sensor ids 1..40, split by who owns them among the given members. */
const ids = Array.from({ length: 40 }, (_, i) => i + 1);
const ownedBy = (name: string, members: string[]) => ids.filter((id) => ownerOf(id, members) === name);

describe('SensorHandover', () => {
  let membership: FakeMembership;
  let runtime: FakeRuntime;
  let loops: FakeLoops;
  let handover: SensorHandover;

  beforeEach(() => {
    jest.useFakeTimers({ now: 1_000_000 });
    membership = new FakeMembership();
    runtime = new FakeRuntime();
    loops = new FakeLoops();
    for (const id of ids) runtime.entries.set(id, entry(id));
    handover = new SensorHandover(
      membership as unknown as HandoverMembership,
      runtime,
      loops,
      { now: () => Date.now() },
      quietLogger,
    );
    handover.start();
  });

  afterEach(() => {
    handover.stop();
    jest.useRealTimers();
  });

  it('owns the sensors the member list gives it', () => {
    expect(ids.every((id) => handover.owns(id))).toBe(true);
    membership.members = ['a', 'b'];
    expect(ids.filter((id) => handover.owns(id))).toEqual(ownedBy('a', ['a', 'b']));
  });

  it('stops the sensors it hands over at once, then tells the others it released them', async () => {
    membership.change(['a', 'b']);
    expect(loops.stopped).toEqual(ownedBy('b', ['a', 'b']));
    await jest.advanceTimersByTimeAsync(0);
    expect(runtime.flushes).toBe(1);
    expect(membership.released).toEqual([{ members: ['a', 'b'], agoMs: 0 }]);
    expect(loops.continued).toEqual([]);
  });

  it('takes sensors from a live owner over once that owner says it released them', async () => {
    membership.members = ['b'];
    membership.change(['a', 'b']);
    await jest.advanceTimersByTimeAsync(300);
    expect(loops.continued).toEqual([]);
    const at = Date.now() - 100;
    membership.releases.next({ from: 'b', members: 'a\nb', at });
    await jest.advanceTimersByTimeAsync(0);
    const gained = ownedBy('a', ['a', 'b']);
    expect(runtime.refreshed).toEqual([gained]);
    expect(loops.continued).toEqual([
      { ids: gained, lastRuns: new Map(gained.map((id) => [id, null])), since: at },
    ]);
  });

  it('takes them over at once when the release came before its own look', async () => {
    membership.members = ['b'];
    const at = Date.now() - 50;
    membership.releases.next({ from: 'b', members: 'a\nb', at });
    membership.change(['a', 'b']);
    await jest.advanceTimersByTimeAsync(0);
    expect(loops.continued.map((c) => [c.ids, c.since])).toEqual([[ownedBy('a', ['a', 'b']), at]]);
  });

  it('ignores a release for another member list and waits a period and a half second', async () => {
    membership.members = ['b'];
    membership.change(['a', 'b']);
    membership.releases.next({ from: 'b', members: 'b\nc', at: Date.now() });
    await jest.advanceTimersByTimeAsync(PERIOD + 499);
    expect(loops.continued).toEqual([]);
    // The timer fires; the takeover it starts runs a millisecond later (a timer set while timers run).
    await jest.advanceTimersByTimeAsync(2);
    expect(loops.continued.map((c) => [c.ids, c.since])).toEqual([[ownedBy('a', ['a', 'b']), Date.now()]]);
  });

  it('takes sensors of a gone member over at once, from when it was free', async () => {
    membership.members = ['a', 'b'];
    membership.free = Date.now() - 2000;
    membership.change(['a'], ['b']);
    await jest.advanceTimersByTimeAsync(0);
    expect(loops.continued.map((c) => [c.ids, c.since])).toEqual([
      [ownedBy('b', ['a', 'b']), Date.now() - 2000],
    ]);
  });

  it('passes on the last runs it heard of, and leaves out disabled sensors', async () => {
    membership.members = ['a', 'b'];
    const moving = ownedBy('b', ['a', 'b']);
    runtime.entries.set(moving[0], entry(moving[0], 999_000));
    runtime.entries.get(moving[1])!.definition.enabled = false;
    membership.change(['a'], ['b']);
    await jest.advanceTimersByTimeAsync(0);
    const [continued] = loops.continued;
    expect(continued.ids).toEqual(moving.filter((id) => id !== moving[1]));
    expect(continued.lastRuns.get(moving[0])).toBe(999_000);
  });

  it('does nothing while the scheduler is not started', async () => {
    loops.isStarted = false;
    membership.members = ['a', 'b'];
    membership.change(['a'], ['b']);
    membership.change(['a', 'c']);
    await jest.advanceTimersByTimeAsync(5 * PERIOD);
    expect(loops.stopped).toEqual([]);
    expect(loops.continued).toEqual([]);
  });

  it('takes nothing over once stopped', async () => {
    membership.members = ['b'];
    membership.change(['a', 'b']);
    handover.stop();
    await jest.advanceTimersByTimeAsync(5 * PERIOD);
    membership.releases.next({ from: 'b', members: 'a\nb', at: Date.now() });
    await jest.advanceTimersByTimeAsync(0);
    expect(loops.continued).toEqual([]);
  });

  it('waits for no one on a single instance', () => {
    expect(handover.handOverFrom(1)).toBeNull();
  });
});
