import { packMessages, PAYLOAD_LIMIT } from './cluster-events.bridge';

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe('packMessages', () => {
  it('keeps every event, in order, in messages under the NOTIFY payload limit', () => {
    const events = Array.from({ length: 500 }, (_, i) => [
      'result' as const,
      { sensor_id: i, result: { ts: '2026-11-25T00:00:00.000Z', success: true, message: 'HTTP 200 OK' } },
    ]) as Parameters<typeof packMessages>[1];
    const messages = packMessages('token', events);
    expect(messages.length).toBeGreaterThan(1);
    for (const message of messages) {
      expect(message.o).toBe('token');
      expect(bytes(message)).toBeLessThan(PAYLOAD_LIMIT);
    }
    expect(messages.flatMap((m) => m.e)).toEqual(events);
  });

  it('shortens the long strings of an event too large alone, and sends it', () => {
    const message = 'é'.repeat(10_000);
    const [packed] = packMessages('token', [['incident', { sensor_id: 1, incident: { note: message } }]]);
    expect(bytes(packed)).toBeLessThan(PAYLOAD_LIMIT);
    const [[kind, payload]] = packed.e as [string, { incident: { note: string } }][];
    expect(kind).toBe('incident');
    expect(payload.incident.note).toBe(`${'é'.repeat(1000)}…`);
  });

  it('sends nothing for no events', () => {
    expect(packMessages('token', [])).toEqual([]);
  });
});
