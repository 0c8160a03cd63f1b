import { ConcurrencyLimit } from './concurrency-limit';

/** A task the test finishes by hand, recording when it started. */
function manualTask(started: string[], name: string) {
  let finish!: (value: string) => void;
  let fail!: (error: Error) => void;
  const done = new Promise<string>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  return {
    task: () => {
      started.push(name);
      return done;
    },
    finish: () => finish(name),
    fail: () => fail(new Error(`${name} failed`)),
  };
}

/** Lets every settled promise run its continuations. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('ConcurrencyLimit', () => {
  it('runs at most `limit` tasks at once and starts the others in arrival order as places free', async () => {
    const limit = new ConcurrencyLimit(2);
    const started: string[] = [];
    const tasks = ['a', 'b', 'c', 'd', 'e'].map((name) => manualTask(started, name));
    const results = tasks.map((t) => limit.run(t.task));
    await settle();
    expect(started).toEqual(['a', 'b']);
    expect([limit.running, limit.queued]).toEqual([2, 3]);
    tasks[1].finish();
    await settle();
    expect(started).toEqual(['a', 'b', 'c']);
    expect([limit.running, limit.queued]).toEqual([2, 2]);
    tasks[0].fail();
    await expect(results[0]).rejects.toThrow('a failed');
    await settle();
    expect(started).toEqual(['a', 'b', 'c', 'd']);
    for (const t of tasks.slice(2)) t.finish();
    await expect(Promise.all(results.slice(1))).resolves.toEqual(['b', 'c', 'd', 'e']);
    expect([limit.running, limit.queued]).toEqual([0, 0]);
  });

  it('frees the place of a task that throws at once', async () => {
    const limit = new ConcurrencyLimit(1);
    await expect(
      limit.run(() => {
        throw new Error('at once');
      }),
    ).rejects.toThrow('at once');
    expect(limit.running).toBe(0);
    await expect(limit.run(() => Promise.resolve(1))).resolves.toBe(1);
  });

  it('refuses a limit below one', () => {
    expect(() => new ConcurrencyLimit(0)).toThrow(RangeError);
  });
});
