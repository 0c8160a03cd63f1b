import type { SensorRuntimeColumns } from '../sensors/sensor-runtime-columns';
import { RuntimeColumnsThrottle } from './runtime-columns-throttle';

const columns = (over: Partial<SensorRuntimeColumns> = {}): SensorRuntimeColumns => ({
  status: 'up',
  message: 'HTTP 200',
  lastCheckedAt: 1000,
  latencyMs: 3,
  streak: 0,
  statusChangedAt: null,
  lastAlertAt: null,
  ...over,
});

describe('RuntimeColumnsThrottle', () => {
  it('writes the first columns, then only a changed state or after the refresh time', () => {
    const throttle = new RuntimeColumnsThrottle(60_000);
    expect(throttle.due(1, columns(), 0)).toBe(true);
    throttle.wrote(new Map([[1, columns()]]), 0);
    expect(throttle.due(1, columns({ lastCheckedAt: 2000, message: 'HTTP 204', latencyMs: 9 }), 1000)).toBe(
      false,
    );
    expect(throttle.due(1, columns({ status: 'warn', streak: 1 }), 2000)).toBe(true);
    expect(throttle.due(1, columns({ streak: 1 }), 2000)).toBe(true);
    expect(throttle.due(1, columns({ lastAlertAt: 5 }), 2000)).toBe(true);
    expect(throttle.due(1, columns({ statusChangedAt: 5 }), 2000)).toBe(true);
    expect(throttle.due(1, columns({ lastCheckedAt: 61_000 }), 60_000)).toBe(true);
  });

  it('hands the kept-back columns out once, the newest of each sensor', () => {
    const throttle = new RuntimeColumnsThrottle(60_000);
    throttle.wrote(
      new Map([
        [1, columns()],
        [2, columns()],
      ]),
      0,
    );
    throttle.due(1, columns({ lastCheckedAt: 2000 }), 10);
    throttle.due(1, columns({ lastCheckedAt: 3000 }), 20);
    throttle.due(2, columns({ lastCheckedAt: 2500 }), 20);
    throttle.due(2, columns({ status: 'down', streak: 3 }), 30);
    expect([...throttle.takeKept()]).toEqual([[1, columns({ lastCheckedAt: 3000 })]]);
    expect(throttle.takeKept().size).toBe(0);
  });

  it('writes in full after the columns were written elsewhere', () => {
    const throttle = new RuntimeColumnsThrottle(60_000);
    throttle.wrote(new Map([[1, columns()]]), 0);
    throttle.forget(1);
    expect(throttle.due(1, columns({ lastCheckedAt: 2000 }), 10)).toBe(true);
  });
});
