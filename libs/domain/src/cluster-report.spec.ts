import type { ClusterView } from '@monitor/contracts';
import { activeMembers, loadOf } from './cluster-membership';
import { activationMs, clusterCheck, clusterViewOf, type ReportedRow } from './cluster-report';

const NOW = 1_800_000_000_000;
const DEAD_AFTER = 15_000;
const row = (name: string, extra: Partial<ReportedRow> = {}): ReportedRow => ({
  name,
  token: `${name}-token`,
  version: '1.2.3',
  startedAt: NOW - 600_000,
  lastSeenAt: NOW - 1_000,
  stoppedAt: null,
  ...extra,
});
const ids = Array.from({ length: 100 }, (_, i) => i + 1);

describe('clusterViewOf', () => {
  it('judges each row as the instances do and shares the enabled sensors among the active ones', () => {
    const rows = [
      row('node-c', { lastSeenAt: NOW - DEAD_AFTER - 1 }),
      row('node-a'),
      row('node-d', { stoppedAt: NOW - 5_000 }),
      row('node-b'),
    ];
    const view = clusterViewOf(rows, NOW, DEAD_AFTER, ids, 'node-a');
    const load = loadOf(ids, activeMembers(rows, NOW, DEAD_AFTER, activationMs(DEAD_AFTER)));
    expect(view.mode).toBe('cluster');
    expect(view.dead_after_s).toBe(15);
    expect(view.instances.map((i) => [i.name, i.alive, i.gone, i.sensors])).toEqual([
      ['node-a', true, null, load.get('node-a')],
      ['node-b', true, null, load.get('node-b')],
      ['node-c', false, 'dead', 0],
      ['node-d', false, 'stopped', 0],
    ]);
    expect(view.instances[0].sensors + view.instances[1].sensors).toBe(100);
    expect(view.instances[2].last_seen_at).toBe(new Date(NOW - DEAD_AFTER - 1).toISOString());
  });

  it('gives a newcomer no sensors before its activation delay (max(200 ms, dead_after/5))', () => {
    expect(activationMs(15_000)).toBe(3_000);
    expect(activationMs(500)).toBe(200);
    const rows = [row('node-a'), row('node-b', { startedAt: NOW - 1_000 })];
    const view = clusterViewOf(rows, NOW, DEAD_AFTER, ids, 'node-a');
    expect(view.instances.map((i) => i.sensors)).toEqual([100, 0]);
  });
});

describe('clusterCheck', () => {
  const instance = (name: string, sensors: number, gone: 'dead' | 'stopped' | null = null) => ({
    name,
    version: '1.2.3',
    started_at: '2026-11-25T07:00:00.000Z',
    last_seen_at: '2026-11-25T08:00:00.000Z',
    alive: gone === null,
    gone,
    sensors,
  });
  const cluster = (...instances: ClusterView['instances']): ClusterView => ({
    mode: 'cluster',
    self: 'node-a',
    dead_after_s: 15,
    instances,
  });

  it('single instance on SQLite, with or without the instance', () => {
    expect(clusterCheck(null)).toEqual({ name: 'cluster', ok: true, detail: 'single instance (SQLite)' });
    expect(
      clusterCheck({ mode: 'single', self: 'solo', dead_after_s: 15, instances: [instance('solo', 1)] }),
    ).toEqual({ name: 'cluster', ok: true, detail: 'single instance (SQLite): solo (1 sensor)' });
  });

  it('names every instance, this one first as listed, and passes while none is dead', () => {
    expect(
      clusterCheck(
        cluster(instance('node-a', 100), instance('node-b', 99), instance('node-d', 0, 'stopped')),
      ),
    ).toEqual({
      name: 'cluster',
      ok: true,
      detail:
        'cluster of 3 instances: node-a (this, 100 sensors), node-b (99), node-d stopped at 2026-11-25T08:00:00.000Z',
    });
  });

  it('fails while a dead instance is listed', () => {
    const check = clusterCheck(
      cluster(instance('node-a', 100), instance('node-b', 99), instance('node-c', 0, 'dead')),
    );
    expect(check.ok).toBe(false);
    expect(check.detail).toBe(
      'cluster of 3 instances: node-a (this, 100 sensors), node-b (99), node-c dead since 2026-11-25T08:00:00.000Z; ' +
        'the dead instance is listed until an administrator removes it',
    );
    expect(clusterCheck(cluster()).detail).toBe('cluster on PostgreSQL: no instance registered');
  });
});
