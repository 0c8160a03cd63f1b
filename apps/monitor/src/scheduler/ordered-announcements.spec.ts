import { OrderedAnnouncements } from './ordered-announcements';

const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
};

describe('OrderedAnnouncements', () => {
  it('announces once committed, and a sensor’s later step never before its earlier one', async () => {
    const said: string[] = [];
    const announcements = new OrderedAnnouncements(() => undefined);
    const batch = deferred();
    const first = announcements.after(1, batch.promise, () => said.push('1: batched result'));
    // A state change written in its own transaction: committed already, but after the batch in order.
    const second = announcements.after(1, null, () => said.push('1: incident'));
    const other = announcements.after(2, null, () => said.push('2: incident'));
    await other;
    expect(said).toEqual(['2: incident']);
    batch.resolve();
    await Promise.all([first, second]);
    expect(said).toEqual(['2: incident', '1: batched result', '1: incident']);
  });

  it('a failing announcement is reported and does not hold back the next', async () => {
    const failures: number[] = [];
    const said: string[] = [];
    const announcements = new OrderedAnnouncements((id) => failures.push(id));
    void announcements.after(3, null, () => {
      throw new Error('subscriber failed');
    });
    await announcements.after(3, null, () => said.push('next'));
    expect(failures).toEqual([3]);
    expect(said).toEqual(['next']);
  });
});
