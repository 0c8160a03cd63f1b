import { nextDueAfter, ScheduleQueue } from './schedule-queue';

describe('ScheduleQueue', () => {
  it('hands out entries in due order, only when due', () => {
    const q = new ScheduleQueue();
    q.schedule(1, 300);
    q.schedule(2, 100);
    q.schedule(3, 200);
    expect(q.nextDue()).toBe(100);
    expect(q.takeDue(99)).toEqual([]);
    expect(q.takeDue(250)).toEqual([
      { id: 2, due: 100 },
      { id: 3, due: 200 },
    ]);
    expect(q.size).toBe(1);
    expect(q.takeDue(1000)).toEqual([{ id: 1, due: 300 }]);
    expect(q.nextDue()).toBeNull();
  });

  it('rescheduling replaces the earlier entry', () => {
    const q = new ScheduleQueue();
    q.schedule(1, 100);
    q.schedule(1, 500);
    expect(q.takeDue(400)).toEqual([]);
    expect(q.takeDue(500)).toEqual([{ id: 1, due: 500 }]);
  });

  it('removed entries never come out', () => {
    const q = new ScheduleQueue();
    q.schedule(1, 100);
    q.schedule(2, 200);
    q.remove(1);
    expect(q.has(1)).toBe(false);
    expect(q.nextDue()).toBe(200);
    expect(q.takeDue(1000)).toEqual([{ id: 2, due: 200 }]);
  });

  it('an entry removed and scheduled again does not come back', () => {
    const q = new ScheduleQueue();
    q.schedule(1, 100);
    q.remove(1);
    q.schedule(1, 500);
    expect(q.takeDue(100)).toEqual([]);
    expect(q.takeDue(500)).toEqual([{ id: 1, due: 500 }]);
    expect(q.takeDue(10_000)).toEqual([]);
  });

  it('an entry taken and scheduled again does not revive an older one', () => {
    const q = new ScheduleQueue();
    q.schedule(2, 200);
    q.schedule(1, 500);
    q.schedule(1, 100);
    expect(q.takeDue(100)).toEqual([{ id: 1, due: 100 }]);
    q.schedule(1, 1000);
    expect(q.takeDue(600)).toEqual([{ id: 2, due: 200 }]);
    expect(q.takeDue(1000)).toEqual([{ id: 1, due: 1000 }]);
  });

  it('keeps order for many random entries', () => {
    const q = new ScheduleQueue();
    const dues = Array.from({ length: 1000 }, (_, id) => ({ id, due: Math.floor(Math.random() * 100_000) }));
    for (const { id, due } of dues) q.schedule(id, due);
    const taken = q.takeDue(100_000).map((e) => e.due);
    expect(taken).toEqual([...dues.map((d) => d.due)].sort((a, b) => a - b));
  });
});

describe('nextDueAfter', () => {
  it('is one interval after the previous due time', () => {
    expect(nextDueAfter(1000, 20_000, 1005)).toBe(21_000);
  });

  it('skips slots that have already passed, staying on the same phase', () => {
    expect(nextDueAfter(1000, 20_000, 65_000)).toBe(81_000);
  });
});
