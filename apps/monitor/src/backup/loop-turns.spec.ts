import { LoopTurns } from './loop-turns';

describe('LoopTurns', () => {
  it('lets waiting callbacks run once a slice is used up, and not before', async () => {
    const order: string[] = [];
    setImmediate(() => order.push('waiting callback'));
    await new LoopTurns(60_000).maybe();
    order.push('not due');
    await new LoopTurns(0).maybe();
    order.push('due');
    expect(order).toEqual(['not due', 'waiting callback', 'due']);
  });
});
