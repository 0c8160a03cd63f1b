import { Writable } from 'node:stream';
import { createLogger } from '../logging/logger';
import { StorageHealth } from './storage-health';

function logged(): { health: StorageHealth; lines: { level: string; msg: string; [k: string]: unknown }[] } {
  const lines: { level: string; msg: string }[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line) as never);
      done();
    },
  });
  return { health: new StorageHealth(createLogger('info', sink)), lines };
}

const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });

describe('StorageHealth', () => {
  it('reports the start and the end of a spell of failures once each', () => {
    const health = new StorageHealth();
    expect(health.problem()).toBeNull();
    expect(health.failed('SQLITE_FULL: database or disk is full', 1000)).toBe(true);
    expect(health.failed('SQLITE_FULL: database or disk is full', 2000)).toBe(false);
    expect(health.problem()).toEqual({
      since: 1000,
      reason: 'SQLITE_FULL: database or disk is full',
      failures: 2,
      disk: false,
    });
    expect(health.recovered()).toBe(true);
    expect(health.recovered()).toBe(false);
    expect(health.problem()).toBeNull();
  });

  it('logs one line when a spell starts and one with its counts when it ends', () => {
    const { health, lines } = logged();
    for (let i = 0; i < 50; i++) health.reportFailure(full, { pending_results: i });
    health.reportSuccess({ results_written: 49 });
    health.reportSuccess();
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      ['error', 'storage full'],
      ['info', 'storage recovered'],
    ]);
    expect(lines[0]).toMatchObject({ reason: 'SQLITE_FULL: the disk is full', pending_results: 0 });
    expect(lines[1]).toMatchObject({ failed_writes: 50, results_written: 49 });
    expect(health.problem()).toBeNull();
  });

  it('ignores errors that say nothing about storage and names I/O failures apart from a full disk', () => {
    const { health, lines } = logged();
    expect(
      health.reportFailure(Object.assign(new Error('x'), { code: 'SQLITE_CONSTRAINT_UNIQUE' })),
    ).toBeNull();
    expect(health.problem()).toBeNull();
    health.reportFailure(Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_WRITE' }), {});
    expect(lines.map((l) => l.msg)).toEqual(['database writes failing']);
    expect(health.problem()?.disk).toBe(true);
    expect(health.describe()).toMatch(
      /^database writes failing since \d{4}-\d\d-\d\dT.*Z: SQLITE_IOERR_WRITE: the disk failed to read or write \(1 failed write\)$/,
    );
  });

  it('tells a waiting writer once when writes work again', () => {
    const health = new StorageHealth();
    const calls: string[] = [];
    health.failed('SQLITE_FULL: the disk is full');
    health.whenRecovered(() => calls.push('retry'));
    health.failed('SQLITE_FULL: the disk is full');
    expect(calls).toEqual([]);
    health.reportSuccess();
    health.failed('SQLITE_FULL: the disk is full');
    health.recovered();
    expect(calls).toEqual(['retry']);
  });

  it('keeps a full-disk spell open while there is no room, whatever write still fits; other spells end at once', () => {
    const { health, lines } = logged();
    let room = false;
    health.requireRoom(() => room);
    const failing: string[] = [];
    health.whenFailing((problem) => failing.push(problem.reason));
    health.reportFailure(full);
    health.reportSuccess();
    health.reportFailure(full);
    expect(health.problem()).toMatchObject({ full: true, failures: 2 });
    expect(failing).toEqual(['SQLITE_FULL: the disk is full', 'SQLITE_FULL: the disk is full']);
    room = true;
    health.reportSuccess();
    expect(health.problem()).toBeNull();
    expect(lines.map((l) => l.msg)).toEqual(['storage full', 'storage recovered']);

    room = false;
    health.reportFailure(Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_WRITE' }));
    health.reportSuccess();
    expect(health.problem()).toBeNull();
  });
});
