import {
  Excuse,
  streakBoundary,
  INITIAL_STATE,
  NOT_EXCUSED,
  rebuildState,
  SensorEvent,
  SensorRules,
  SensorState,
  StoredHistory,
  transition,
} from './sensor-state.machine';

const T = Date.parse('2026-11-21T12:00:00Z');
const MIN = 60_000;
const rules: SensorRules = { retries: 3, reminderEvery: 600 };
const ok = (at = T): SensorEvent => ({ type: 'result', at, success: true, message: 'HTTP 200' });
const fail = (at = T, message = 'HTTP 503'): SensorEvent => ({ type: 'result', at, success: false, message });

const state = (overrides: Partial<SensorState>): SensorState => ({ ...INITIAL_STATE, ...overrides });
const downState = (startedAt = T - 10 * MIN, overrides: Partial<SensorState> = {}): SensorState =>
  state({
    status: 'down',
    streak: 3,
    incident: { id: 7, startedAt, acknowledged: false },
    lastAlertAt: startedAt,
    ...overrides,
  });

describe('sensor status table (one case per row of the specification)', () => {
  it.each<[string, SensorState, SensorEvent, Partial<SensorState>, unknown[]]>([
    [
      'unknown, first probe succeeds → up',
      INITIAL_STATE,
      ok(),
      { status: 'up', streak: 0 },
      [{ kind: 'status-changed', from: 'unknown', to: 'up' }],
    ],
    [
      'unknown, first probe fails → warn, no incident, no alert',
      INITIAL_STATE,
      fail(),
      { status: 'warn', streak: 1, incident: null },
      [{ kind: 'status-changed', from: 'unknown', to: 'warn' }],
    ],
    [
      'up, probe fails → warn, no incident, no alert',
      state({ status: 'up' }),
      fail(),
      { status: 'warn', streak: 1 },
      [{ kind: 'status-changed', from: 'up', to: 'warn' }],
    ],
    [
      'warn, failure streak reaches retries → down, incident opens, down alert',
      state({ status: 'warn', streak: 2 }),
      fail(T, 'HTTP 502'),
      {
        status: 'down',
        streak: 3,
        incident: { id: null, startedAt: T, acknowledged: false },
        lastAlertAt: T,
      },
      [
        { kind: 'open-incident', startedAt: T, cause: 'HTTP 502' },
        { kind: 'alert', alert: 'down', at: T, downSince: T, downForMs: 0 },
        { kind: 'status-changed', from: 'warn', to: 'down' },
      ],
    ],
    [
      'warn, probe fails below retries → warn, streak grows',
      state({ status: 'warn', streak: 1 }),
      fail(),
      { status: 'warn', streak: 2 },
      [],
    ],
    [
      'warn, probe succeeds → up, nothing closed, streak resets',
      state({ status: 'warn', streak: 2 }),
      ok(),
      { status: 'up', streak: 0, incident: null },
      [{ kind: 'status-changed', from: 'warn', to: 'up' }],
    ],
    [
      'down, probe succeeds → up, incident closed, up alert with the outage length',
      downState(T - 10 * MIN),
      ok(T),
      { status: 'up', streak: 0, incident: null },
      [
        { kind: 'close-incident', resolvedAt: T, note: null },
        { kind: 'alert', alert: 'up', at: T, downSince: T - 10 * MIN, downForMs: 10 * MIN },
        { kind: 'status-changed', from: 'down', to: 'up' },
      ],
    ],
    [
      'down, probe fails again → stays down, no new incident or alert',
      downState(),
      fail(),
      { status: 'down', streak: 4 },
      [],
    ],
    [
      'down, reminder_every elapsed since the last alert, unacknowledged → reminder',
      downState(T - 10 * MIN),
      { type: 'tick', at: T },
      { status: 'down', lastAlertAt: T },
      [{ kind: 'alert', alert: 'reminder', at: T, downSince: T - 10 * MIN, downForMs: 10 * MIN }],
    ],
    [
      'any enabled, PATCH enabled false → paused',
      state({ status: 'up' }),
      { type: 'pause', at: T },
      { status: 'paused', streak: 0 },
      [{ kind: 'status-changed', from: 'up', to: 'paused' }],
    ],
  ])('%s', (_name, before, event, expected, effects) => {
    const result = transition(before, rules, event);
    expect(result.state).toMatchObject(expected);
    expect(result.effects).toEqual(effects);
  });
});

describe('edges', () => {
  it('retries 1: the first failure is down, with an incident and an alert', () => {
    const result = transition(INITIAL_STATE, { retries: 1, reminderEvery: 0 }, fail());
    expect(result.state.status).toBe('down');
    expect(result.effects.map((e) => e.kind)).toEqual(['open-incident', 'alert', 'status-changed']);
  });

  it('a whole outage: two warns, down, failures, recovery — one down alert and one up alert', () => {
    let s = INITIAL_STATE;
    const alerts: string[] = [];
    const events = [fail(T), fail(T + MIN), fail(T + 2 * MIN), fail(T + 3 * MIN), ok(T + 4 * MIN)];
    for (const event of events) {
      const r = transition(s, rules, event);
      s = r.state;
      for (const e of r.effects) if (e.kind === 'alert') alerts.push(`${e.alert}:${e.downForMs}`);
    }
    expect(alerts).toEqual(['down:0', `up:${2 * MIN}`]);
    expect(s).toEqual({ status: 'up', streak: 0, incident: null, lastAlertAt: T + 2 * MIN });
  });

  describe('reminders', () => {
    it('are not sent before reminder_every has passed', () => {
      expect(transition(downState(T - 5 * MIN), rules, { type: 'tick', at: T }).effects).toEqual([]);
    });

    it('are counted from the last alert, not the incident start', () => {
      const s = downState(T - 60 * MIN, { lastAlertAt: T - 5 * MIN });
      expect(transition(s, rules, { type: 'tick', at: T }).effects).toEqual([]);
      expect(transition(s, rules, { type: 'tick', at: T + 5 * MIN }).effects).toHaveLength(1);
    });

    it('repeat every reminder_every with a moving clock', () => {
      let s = downState(T);
      const sent: number[] = [];
      for (let at = T; at <= T + 35 * MIN; at += MIN) {
        const r = transition(s, rules, { type: 'tick', at });
        s = r.state;
        if (r.effects.length) sent.push((at - T) / MIN);
      }
      expect(sent).toEqual([10, 20, 30]);
    });

    it('are off with reminder_every 0', () => {
      expect(
        transition(downState(T - 600 * MIN), { retries: 3, reminderEvery: 0 }, { type: 'tick', at: T })
          .effects,
      ).toEqual([]);
    });

    it('stop when acknowledged and restart at once when the acknowledgement is taken back', () => {
      let s = transition(downState(T - 30 * MIN), rules, { type: 'acknowledge', at: T - 25 * MIN }).state;
      expect(s.incident?.acknowledged).toBe(true);
      expect(transition(s, rules, { type: 'tick', at: T }).effects).toEqual([]);
      s = transition(s, rules, { type: 'unacknowledge', at: T }).state;
      expect(s.incident?.acknowledged).toBe(false);
      expect(transition(s, rules, { type: 'tick', at: T }).effects).toEqual([
        { kind: 'alert', alert: 'reminder', at: T, downSince: T - 30 * MIN, downForMs: 30 * MIN },
      ]);
    });

    it('acknowledging suppresses neither the recovery alert nor changes status', () => {
      const acked = transition(downState(), rules, { type: 'acknowledge', at: T }).state;
      expect(acked.status).toBe('down');
      expect(transition(acked, rules, ok(T)).effects.map((e) => e.kind)).toContain('alert');
    });

    it.each<[string, Excuse]>([
      ['inside a maintenance window', { parentDown: false, inMaintenance: true }],
      ['while the parent is down', { parentDown: true, inMaintenance: false }],
    ])('are not sent %s', (_name, excuse) => {
      expect(transition(downState(T - 60 * MIN), rules, { type: 'tick', at: T }, excuse).effects).toEqual([]);
    });
  });

  it('acknowledging with nothing open changes nothing', () => {
    expect(transition(state({ status: 'up' }), rules, { type: 'acknowledge', at: T })).toEqual({
      state: state({ status: 'up' }),
      effects: [],
    });
  });

  it.each<[string, Excuse]>([
    ['its parent is down', { parentDown: true, inMaintenance: false }],
    ['a maintenance window is open', { parentDown: false, inMaintenance: true }],
  ])('failures are excused while %s: down, but no incident and no alert', (_name, excuse) => {
    const r = transition(state({ status: 'warn', streak: 2 }), rules, fail(), excuse);
    expect(r.state).toMatchObject({ status: 'down', incident: null });
    expect(r.effects).toEqual([{ kind: 'status-changed', from: 'warn', to: 'down' }]);
    const recovered = transition(r.state, rules, ok(T + MIN), excuse);
    expect(recovered.effects.filter((e) => e.kind !== 'status-changed')).toEqual([]);
  });

  it('after the excuse ends, the next failure opens an outage dated then', () => {
    const excusedDown = transition(state({ status: 'warn', streak: 2 }), rules, fail(T), {
      parentDown: true,
      inMaintenance: false,
    }).state;
    const r = transition(excusedDown, rules, fail(T + 5 * MIN), NOT_EXCUSED);
    expect(r.effects[0]).toEqual({ kind: 'open-incident', startedAt: T + 5 * MIN, cause: 'HTTP 503' });
  });

  it('a maintenance window closes an open outage with a note when it begins, without an alert', () => {
    const r = transition(downState(), rules, { type: 'maintenance-start', at: T, window: 'firmware' });
    expect(r.effects).toEqual([
      { kind: 'close-incident', resolvedAt: T, note: 'closed by maintenance window "firmware"' },
    ]);
    expect(r.state.incident).toBeNull();
  });

  it('pausing closes an open incident silently; a paused sensor ignores results', () => {
    const paused = transition(downState(), rules, { type: 'pause', at: T });
    expect(paused.effects).toEqual([
      { kind: 'close-incident', resolvedAt: T, note: 'closed because the sensor was paused' },
      { kind: 'status-changed', from: 'down', to: 'paused' },
    ]);
    expect(transition(paused.state, rules, fail()).effects).toEqual([]);
    expect(transition(paused.state, rules, { type: 'acknowledge', at: T }).state).toEqual(paused.state);
  });

  it('resume goes to unknown with the streak at 0', () => {
    const r = transition(state({ status: 'paused', streak: 0 }), rules, { type: 'resume', at: T });
    expect(r.state).toEqual({ ...INITIAL_STATE });
    expect(r.effects).toEqual([{ kind: 'status-changed', from: 'paused', to: 'unknown' }]);
  });
});

describe('rebuildState (restart)', () => {
  const history = (overrides: Partial<StoredHistory>): StoredHistory => ({
    enabled: true,
    newest: { at: T - MIN, success: true, message: 'HTTP 200' },
    trailingFailures: 0,
    streakStartedAt: null,
    openIncident: null,
    lastResolvedAt: null,
    lastAlertAt: null,
    ...overrides,
  });

  it.each<[string, Partial<StoredHistory>, Partial<SensorState>]>([
    ['no results → unknown', { newest: null }, { status: 'unknown', streak: 0 }],
    ['last result a success → up', {}, { status: 'up', streak: 0 }],
    [
      'failures below retries → warn with the streak',
      { newest: { at: T, success: false, message: 'x' }, trailingFailures: 2, streakStartedAt: T },
      { status: 'warn', streak: 2 },
    ],
    ['disabled → paused', { enabled: false }, { status: 'paused' }],
  ])('%s', (_name, stored, expected) => {
    const r = rebuildState(history(stored), rules, T);
    expect(r.state).toMatchObject(expected);
    expect(r.reconstructed).toBeNull();
  });

  it('keeps a known outage with its incident and last alert, and reconstructs nothing', () => {
    const incident = { id: 4, startedAt: T - 60 * MIN, acknowledged: true };
    const r = rebuildState(
      history({
        newest: { at: T - MIN, success: false, message: 'HTTP 500' },
        trailingFailures: 9,
        streakStartedAt: T - 62 * MIN,
        openIncident: incident,
        lastAlertAt: T - 20 * MIN,
      }),
      rules,
      T,
    );
    expect(r).toEqual({
      state: { status: 'down', streak: 9, incident, lastAlertAt: T - 20 * MIN },
      reconstructed: null,
    });
  });

  it('reconstructs an outage that happened while the process was off, from the first failure of the streak', () => {
    const r = rebuildState(
      history({
        newest: { at: T - MIN, success: false, message: 'connection refused' },
        trailingFailures: 5,
        streakStartedAt: T - 30 * MIN,
      }),
      rules,
      T,
    );
    expect(r.reconstructed).toEqual({
      startedAt: T - 30 * MIN,
      cause: 'connection refused (reconstructed after restart)',
    });
    expect(r.state).toEqual({
      status: 'down',
      streak: 5,
      incident: { id: null, startedAt: T - 30 * MIN, acknowledged: false },
      lastAlertAt: T,
    });
  });

  it('does not reconstruct while the failures are excused', () => {
    const r = rebuildState(
      history({ newest: { at: T, success: false, message: 'x' }, trailingFailures: 5, streakStartedAt: T }),
      rules,
      T,
      { parentDown: false, inMaintenance: true },
    );
    expect(r.reconstructed).toBeNull();
    expect(r.state.status).toBe('down');
  });

  describe('failures a stored incident already covers (kill -9 before the results reached the disk)', () => {
    const failing = (at: number, message = 'HTTP 503') => ({ at, success: false, message });
    it.each<[string, Partial<StoredHistory>, Partial<SensorState>]>([
      [
        'an outage resolved after its newest stored failure (the success was lost) → nothing open, unknown',
        {
          newest: failing(T - 2 * MIN),
          trailingFailures: 0,
          streakStartedAt: null,
          lastResolvedAt: T - MIN,
        },
        { status: 'unknown', streak: 0, incident: null },
      ],
      [
        'a streak reported from before the newest resolution belongs to that incident',
        {
          newest: failing(T - MIN),
          trailingFailures: 8,
          streakStartedAt: T - 10 * MIN,
          lastResolvedAt: T - 5 * MIN,
        },
        { status: 'unknown', streak: 0, incident: null },
      ],
      [
        'a streak starting exactly at the resolution is covered too',
        {
          newest: failing(T - MIN),
          trailingFailures: 4,
          streakStartedAt: T - 5 * MIN,
          lastResolvedAt: T - 5 * MIN,
        },
        { status: 'unknown', streak: 0, incident: null },
      ],
      [
        'failures after the resolution, below the threshold → warn with only those failures',
        {
          newest: failing(T - MIN),
          trailingFailures: 2,
          streakStartedAt: T - 2 * MIN,
          lastResolvedAt: T - 5 * MIN,
        },
        { status: 'warn', streak: 2, incident: null },
      ],
      [
        'a success after the resolution → up',
        { newest: { at: T - MIN, success: true, message: 'ok' }, lastResolvedAt: T - 5 * MIN },
        { status: 'up', streak: 0, incident: null },
      ],
    ])('%s', (_name, stored, expected) => {
      const r = rebuildState(history(stored), rules, T);
      expect(r.state).toMatchObject(expected);
      expect(r.reconstructed).toBeNull();
    });

    it('failures after the newest resolution that reach the threshold are a new outage, dated at the first of them', () => {
      const r = rebuildState(
        history({
          newest: failing(T - MIN, 'refused'),
          trailingFailures: 3,
          streakStartedAt: T - 3 * MIN,
          lastResolvedAt: T - 5 * MIN,
        }),
        rules,
        T,
      );
      expect(r.reconstructed).toEqual({
        startedAt: T - 3 * MIN,
        cause: 'refused (reconstructed after restart)',
      });
      expect(r.state.incident).toEqual({ id: null, startedAt: T - 3 * MIN, acknowledged: false });
    });

    it('a new outage after a covered one is never swallowed: the next failure opens it and alerts', () => {
      const rebuilt = rebuildState(
        history({ newest: failing(T - 2 * MIN), trailingFailures: 0, lastResolvedAt: T - MIN }),
        { retries: 1, reminderEvery: 0 },
        T,
      );
      const next = transition(rebuilt.state, { retries: 1, reminderEvery: 0 }, fail(T + 1000));
      expect(next.effects).toEqual(
        expect.arrayContaining([
          { kind: 'open-incident', startedAt: T + 1000, cause: 'HTTP 503' },
          expect.objectContaining({ kind: 'alert', alert: 'down' }),
        ]),
      );
    });

    it('a second start over the same stored data keeps the reconstructed incident instead of opening another', () => {
      const stored = history({ newest: failing(T - MIN), trailingFailures: 5, streakStartedAt: T - 5 * MIN });
      const first = rebuildState(stored, rules, T);
      expect(first.reconstructed).not.toBeNull();
      const again = rebuildState(
        { ...stored, openIncident: { id: 9, startedAt: T - 5 * MIN, acknowledged: false } },
        rules,
        T + MIN,
      );
      expect(again.reconstructed).toBeNull();
      expect(again.state.incident?.id).toBe(9);
    });
  });
});

describe('streakBoundary', () => {
  it.each<[string, number | null, number | null, number | null]>([
    ['nothing stored bounds nothing', null, null, null],
    ['only a success', T, null, T],
    ['only a resolution', null, T, T],
    ['the later of a success and a resolution (resolution later)', T - MIN, T, T],
    ['the later of a success and a resolution (success later)', T, T - MIN, T],
  ])('%s', (_name, success, resolved, expected) => {
    expect(streakBoundary(success, resolved)).toBe(expected);
  });
});
