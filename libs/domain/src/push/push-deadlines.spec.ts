import { noPushMessage, PushDeadlines } from './push-deadlines';

const S = 1000;

describe('push deadlines', () => {
  it.each([
    // [seconds after watching began, expected missed deadlines (seconds) and messages]
    [89, []],
    [90, [[90, 'no push received for 1m 30s']]],
    [
      150,
      [
        [90, 'no push received for 1m 30s'],
        [150, 'no push received for 2m 30s'],
      ],
    ],
  ] as [number, [number, string][]][])('interval 60, grace 30, checked at %p s', (at, expected) => {
    const deadlines = new PushDeadlines();
    deadlines.watch(1, 0, 60, 30);
    expect(deadlines.takeMissed(at * S).map((m) => [m.at / S, m.message])).toEqual(expected);
  });

  it('records each missed deadline once, then the next an interval later', () => {
    const deadlines = new PushDeadlines();
    deadlines.watch(1, 0, 60, 0);
    expect(deadlines.takeMissed(60 * S)).toHaveLength(1);
    expect(deadlines.takeMissed(60 * S)).toHaveLength(0);
    expect(deadlines.takeMissed(119 * S)).toHaveLength(0);
    expect(deadlines.takeMissed(120 * S).map((m) => m.message)).toEqual(['no push received for 2m']);
  });

  it('a push starts the wait over; an older push changes nothing', () => {
    const deadlines = new PushDeadlines();
    deadlines.watch(1, 0, 60, 10);
    expect(deadlines.pushed(1, 50 * S)).toBe(true);
    expect(deadlines.pushed(1, 40 * S)).toBe(true);
    expect(deadlines.takeMissed(119 * S)).toEqual([]);
    expect(deadlines.takeMissed(120 * S)).toEqual([
      { id: 1, at: 120 * S, message: 'no push received for 1m 10s' },
    ]);
  });

  it('knows nothing of sensors it does not watch', () => {
    const deadlines = new PushDeadlines();
    expect(deadlines.pushed(7, 0)).toBe(false);
    deadlines.watch(7, 0, 60, 0);
    deadlines.drop(7);
    expect(deadlines.takeMissed(600 * S)).toEqual([]);
    expect(deadlines.size).toBe(0);
  });

  it('caps one pass at 100 failures and continues from the next deadline still ahead', () => {
    const deadlines = new PushDeadlines();
    deadlines.watch(1, 0, 1, 0);
    expect(deadlines.takeMissed(1000 * S)).toHaveLength(100);
    expect(deadlines.takeMissed(1000 * S)).toEqual([]);
    expect(deadlines.takeMissed(1001 * S).map((m) => m.at)).toEqual([1001 * S]);
  });

  it.each([
    // [pushed at, retimed at, new interval, first deadline after the change]
    [0, 10, 120, 120], // not overdue: counts from the last push
    [0, 100, 30, 130], // the new deadline would lie in the past: one interval from the change
  ])('retime after a push at %p s, changed at %p s to %p s', (pushedAt, changedAt, interval, due) => {
    const deadlines = new PushDeadlines();
    deadlines.watch(1, pushedAt * S, 60, 0);
    deadlines.retime(1, interval, 0, changedAt * S);
    expect(deadlines.takeMissed((due - 1) * S)).toEqual([]);
    expect(deadlines.takeMissed(due * S).map((m) => m.at)).toEqual([due * S]);
  });

  it('a retime after a missed deadline does not record it again', () => {
    const deadlines = new PushDeadlines();
    deadlines.watch(1, 0, 60, 0);
    expect(deadlines.takeMissed(60 * S)).toHaveLength(1);
    deadlines.retime(1, 60, 5, 70 * S);
    expect(deadlines.takeMissed(129 * S)).toEqual([]);
    expect(deadlines.takeMissed(130 * S)).toHaveLength(1);
  });

  it('words the silence in the largest two units', () => {
    expect(noPushMessage(45 * S)).toBe('no push received for 45s');
    expect(noPushMessage(2 * 86400 * S + 3600 * S)).toBe('no push received for 2d 1h');
  });
});
