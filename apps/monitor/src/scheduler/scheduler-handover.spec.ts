import { activeMembers, INITIAL_STATE, type MemberRow, ownerOf } from '@monitor/domain';
import type { ProbeCatalogue } from '@monitor/probes';
import { Subject } from 'rxjs';
import type { MembershipChange, MembershipService, Release } from '../cluster/membership.service';
import type { Clock } from '../core/clock/clock';
import type { ProcessMetrics } from '../core/metrics/process-metrics';
import type { RollupMaintenance } from '../history/rollup-maintenance.service';
import type { MaintenanceService } from '../maintenance/maintenance.service';
import type { SensorsRepository } from '../sensors/sensors.repository';
import type { RuntimeEntry } from './runtime-entry';
import type { SensorDefinition } from '../sensors/sensor-definition';
import { quietLogger, testDefinition } from './scheduler.fixtures';
import { SchedulerService } from './scheduler.service';
import type { SensorRuntimeService } from './sensor-runtime.service';

/**
 * Two schedulers sharing sensors on one injected clock (jest's fake timers), with member lists
 * read once a period as the membership service reads them, so that for one period the two hold
 * different lists. Whatever they disagree about, no sensor is probed by both (issue 25).
 */
const PERIOD = 1000;
const DEAD_AFTER = 5 * PERIOD;
const INTERVAL_S = 2;
const SENSORS = 40;

const definition = (id: number) => testDefinition(id, { interval: INTERVAL_S });

/** The shared membership table and every probe made, by whom and when. */
class World {
  rows: MemberRow[] = [];
  probes: { id: number; by: string; at: number }[] = [];
  instances: Instance[] = [];
}

/** One instance's view of the members, read when told to (its heartbeat), as MembershipService does. */
class FakeMembership {
  readonly changes = new Subject<MembershipChange>();
  readonly releases = new Subject<Release>();
  readonly periodMs = PERIOD;
  readonly deadAfterMs = DEAD_AFTER;
  members: readonly string[] = [];
  private read: { now: number; rows: MemberRow[] } = { now: 0, rows: [] };

  constructor(
    readonly self: { name: string },
    private readonly world: World,
  ) {}

  snapshot() {
    return this.read;
  }

  dbTime(): number {
    return Date.now();
  }

  beat(): void {
    const now = Date.now();
    const mine = this.world.rows.find((r) => r.name === this.self.name);
    if (mine) mine.lastSeenAt = now;
    this.read = { now, rows: this.world.rows.map((r) => ({ ...r })) };
    const before = this.members;
    this.members = activeMembers(this.read.rows, now, DEAD_AFTER, PERIOD);
    if (before.join('\n') !== this.members.join('\n'))
      this.changes.next({ before, after: this.members, gone: new Set() });
  }

  release(members: readonly string[], agoMs: number): Promise<void> {
    const release = { from: this.self.name, members: members.join('\n'), at: Date.now() - agoMs };
    for (const other of this.world.instances)
      if (other.name !== this.self.name) other.membership.releases.next(release);
    return Promise.resolve();
  }

  freeSince(): null {
    return null;
  }

  mayProbe(): boolean {
    return true;
  }

  stoppedProbing(): void {}
}

/** The runtime state the scheduler keeps per sensor; results are only counted. */
class FakeRuntime {
  readonly entries = new Map<number, RuntimeEntry>();

  define(d: SensorDefinition): Promise<void> {
    const known = this.entries.get(d.id);
    if (known) known.definition = d;
    else
      this.entries.set(d.id, {
        definition: d,
        state: { ...INITIAL_STATE },
        message: '',
        lastCheckedAt: null,
        latencyMs: null,
        statusChangedAt: null,
        sparkline: [],
        recent: '',
        lastResult: null,
      });
    return Promise.resolve();
  }

  async rebuild(definitions: SensorDefinition[]): Promise<void> {
    for (const d of definitions) await this.define(d);
  }

  refresh = () => Promise.resolve();
  flush = () => Promise.resolve();
  tick = () => Promise.resolve();
  get = (id: number) => this.entries.get(id);
  all = () => this.entries.values();

  submit(id: number, _outcome: unknown, at: number): Promise<{ announced: Promise<null> }> {
    const entry = this.entries.get(id);
    if (entry) entry.lastCheckedAt = at;
    return Promise.resolve({ announced: Promise.resolve(null) });
  }
}

class Instance {
  readonly membership: FakeMembership;
  readonly runtime = new FakeRuntime();
  readonly scheduler: SchedulerService;
  private readonly sensors: SensorDefinition[];

  constructor(
    readonly name: string,
    private readonly world: World,
    sensors: SensorDefinition[],
  ) {
    this.sensors = [...sensors];
    this.membership = new FakeMembership({ name }, world);
    const catalogue = {
      get: () => ({
        run: ({ target }: { target: string }) => {
          world.probes.push({ id: Number(target.split('/').pop()), by: name, at: Date.now() });
          return Promise.resolve({ success: true, message: 'ok', latencyMs: 1 });
        },
      }),
      close: () => Promise.resolve(),
    };
    const repository = {
      definitions: () => Promise.resolve(this.sensors),
      definition: (id: number) => Promise.resolve(this.sensors.find((d) => d.id === id) ?? null),
    };
    this.scheduler = new SchedulerService(
      repository as unknown as SensorsRepository,
      this.runtime as unknown as SensorRuntimeService,
      catalogue as unknown as ProbeCatalogue,
      { active: () => [], covers: () => false } as unknown as MaintenanceService,
      { holdWhile: () => undefined, startSchedule: () => undefined } as unknown as RollupMaintenance,
      { now: () => Date.now() } as Clock,
      this.membership as unknown as MembershipService,
      { startScheduler: true },
      quietLogger,
      { probeStarted: () => undefined, probeFinished: () => undefined } as unknown as ProcessMetrics,
    );
    world.instances.push(this);
  }

  /** Registers in the membership table, reads it, starts the scheduler, beats once a period. */
  async start(): Promise<void> {
    const now = Date.now();
    this.world.rows.push({
      name: this.name,
      token: this.name,
      startedAt: now,
      lastSeenAt: now,
      stoppedAt: null,
    });
    this.membership.beat();
    await this.scheduler.onApplicationBootstrap();
    const timer = setInterval(() => this.membership.beat(), PERIOD);
    timer.unref();
  }

  /** A sensor created through another instance reaches this one (its cluster event). */
  async created(d: SensorDefinition): Promise<void> {
    this.sensors.push(d);
    await this.scheduler.reconcile(d.id, d);
  }

  stop(): Promise<void> {
    return this.scheduler.beforeApplicationShutdown();
  }
}

/** The smallest time between two probes of one sensor, by anyone, per sensor. */
function closestProbes(world: World): { id: number; gap: number; by: string[] }[] {
  const byId = new Map<number, { by: string; at: number }[]>();
  for (const p of world.probes) byId.set(p.id, [...(byId.get(p.id) ?? []), p]);
  return [...byId].map(([id, probes]) => {
    let gap = Infinity;
    let by: string[] = [];
    for (let i = 1; i < probes.length; i++)
      if (probes[i].at - probes[i - 1].at < gap) {
        gap = probes[i].at - probes[i - 1].at;
        by = [probes[i - 1].by, probes[i].by];
      }
    return { id, gap, by };
  });
}

describe('SchedulerService while two instances hold different member lists', () => {
  const ids = Array.from({ length: SENSORS }, (_, i) => i + 1);
  const moving = ids.filter((id) => ownerOf(id, ['a', 'c']) === 'c');
  let world: World;

  beforeEach(() => {
    jest.useFakeTimers({ now: 1_000_000 });
    // Start jitter a tenth of an interval: the first probes fall inside the period the lists differ.
    jest.spyOn(Math, 'random').mockReturnValue(0.1);
    world = new World();
  });

  afterEach(async () => {
    for (const instance of world.instances) await instance.stop();
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  const settle = () => jest.advanceTimersByTimeAsync(10 * INTERVAL_S * 1000);

  const expectOneProberEach = () => {
    expect(moving.length).toBeGreaterThan(0);
    for (const { id, gap, by } of closestProbes(world))
      expect({ id, gap, by, twoProbers: gap < (INTERVAL_S * 1000) / 2 }).toMatchObject({ twoProbers: false });
    // And each ends with its owner under the final list, probed every interval.
    const since = Date.now() - 2 * INTERVAL_S * 1000;
    for (const id of ids) {
      const last = world.probes.filter((p) => p.id === id && p.at >= since);
      expect(last.map((p) => p.by)).toEqual([ownerOf(id, ['a', 'c']), ownerOf(id, ['a', 'c'])]);
    }
  };

  it('a sensor created while a newcomer is active for one instance and not yet for the other is probed by one of them', async () => {
    const a = new Instance('a', world, []);
    await a.start();
    await jest.advanceTimersByTimeAsync(5 * PERIOD + 50);
    const c = new Instance('c', world, []);
    await c.start();
    // c activates one period after it registered; c reads that first, a most of a period later.
    await jest.advanceTimersByTimeAsync(PERIOD + 100);
    expect(c.membership.members).toEqual(['a', 'c']);
    expect(a.membership.members).toEqual(['a']);
    for (const id of ids) {
      await a.created(definition(id));
      await c.created(definition(id));
    }
    await settle();
    expectOneProberEach();
  });

  it('an instance starting while the other still holds the list without it probes nothing the other probes', async () => {
    const sensors = ids.map(definition);
    const a = new Instance('a', world, sensors);
    await a.start();
    await jest.advanceTimersByTimeAsync(100);
    // Both started within one activation delay: the newcomer counts everyone alive at once, the
    // first still holds its own list until its next reading.
    const c = new Instance('c', world, sensors);
    await c.start();
    expect(c.membership.members).toEqual(['a', 'c']);
    expect(a.membership.members).toEqual(['a']);
    await settle();
    expectOneProberEach();
  });
});
