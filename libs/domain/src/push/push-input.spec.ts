import { readPush } from './push-input';

describe('reading a push', () => {
  it.each([
    [{}, undefined, { success: true, message: '', latencyMs: null }],
    [
      { status: 'down', msg: 'disk full', latency_ms: '12.5' },
      undefined,
      { success: false, message: 'disk full', latencyMs: 12.5 },
    ],
    [{ status: ['down', 'up'] }, undefined, { success: true, message: '', latencyMs: null }],
    [{ status: 'down', msg: 'q' }, { status: 'up' }, { success: true, message: 'q', latencyMs: null }],
    [{}, { latency_ms: 0 }, { success: true, message: '', latencyMs: 0 }],
    [{ unknown: 'x' }, undefined, { success: true, message: '', latencyMs: null }],
    [{}, '', { success: true, message: '', latencyMs: null }],
    [{}, null, { success: true, message: '', latencyMs: null }],
  ])('query %p, body %p', (query, body, expected) => {
    expect(readPush(query, body)).toEqual(expected);
  });

  it.each([
    [{ status: 'UP' }, undefined, 'status must be up or down'],
    [{}, { status: true }, 'status must be up or down'],
    [{ msg: 'x'.repeat(201) }, undefined, 'msg must be at most 200 characters'],
    [{}, { msg: ['a'] }, 'msg must be a string'],
    [{ latency_ms: 'NaN' }, undefined, 'latency_ms must be a finite number of at least 0'],
    [{ latency_ms: 'Infinity' }, undefined, 'latency_ms must be a finite number of at least 0'],
    [{}, { latency_ms: -0.5 }, 'latency_ms must be a finite number of at least 0'],
    [{}, { extra: 1 }, 'extra is not a field of a push'],
    [{}, 'text', 'the body must be a JSON object'],
  ])('refuses query %p, body %p', (query, body, error) => {
    expect(() => readPush(query, body)).toThrow(error);
  });
});
