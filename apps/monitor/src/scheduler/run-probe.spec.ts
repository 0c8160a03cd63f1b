import type { ProbeCatalogue, ProbeOutcome } from '@monitor/probes';
import { outcomeColumns, ProbeRuns, resultView } from './run-probe';
import { quietLogger, testDefinition } from './scheduler.fixtures';

const definition = testDefinition(7, { name: 's', target: 'http://127.0.0.1/' });

/** A probe that answers when told to. */
function pendingProbe() {
  const { promise, resolve } = Promise.withResolvers<ProbeOutcome>();
  const catalogue = { get: () => ({ run: () => promise }) } as unknown as ProbeCatalogue;
  return { catalogue, answer: resolve };
}

describe('outcome conversions', () => {
  it('stores the latency to a tenth of a millisecond and shows what it stores', () => {
    const outcome = { success: true, message: 'ok', latencyMs: 12.345, statusCode: 200 };
    expect(outcomeColumns(outcome)).toEqual({
      success: true,
      statusCode: 200,
      latencyMs: 12.3,
      message: 'ok',
    });
    expect(resultView(0, { ...outcome, statusCode: undefined })).toEqual({
      ts: '1970-01-01T00:00:00.000Z',
      success: true,
      status_code: null,
      message: 'ok',
      latency_ms: 12.3,
    });
  });
});

describe('ProbeRuns', () => {
  const submitted: { id: number; at: number }[] = [];
  const runtime = {
    submit: (id: number, _outcome: ProbeOutcome, at: number) => {
      submitted.push({ id, at });
      return Promise.resolve({ announced: Promise.resolve(null) });
    },
  };
  const metrics = { probeFinished: jest.fn() };
  beforeEach(() => {
    submitted.length = 0;
    metrics.probeFinished.mockClear();
  });

  it('submits the outcome stamped with the start, counts it, and frees the sensor', async () => {
    const { catalogue, answer } = pendingProbe();
    const runs = new ProbeRuns(catalogue, runtime, { now: () => 1000 }, metrics, quietLogger);
    const run = runs.run(definition);
    expect(runs.has(7)).toBe(true);
    expect(runs.oldestStart()).toBe(1000);
    answer({ success: true, message: 'ok', latencyMs: 1 });
    await run;
    await Promise.resolve();
    expect(submitted).toEqual([{ id: 7, at: 1000 }]);
    expect(metrics.probeFinished).toHaveBeenCalledWith(7, true, undefined);
    expect(runs.has(7)).toBe(false);
    expect(runs.oldestStart()).toBe(Infinity);
  });

  it('records nothing of a run whose loop was stopped meanwhile', async () => {
    const { catalogue, answer } = pendingProbe();
    const runs = new ProbeRuns(catalogue, runtime, { now: () => 1000 }, metrics, quietLogger);
    const run = runs.run(definition);
    runs.stop(7);
    answer({ success: false, message: 'aborted', latencyMs: null });
    await run;
    expect(submitted).toEqual([]);
    expect(runs.has(7)).toBe(false);
  });
});
