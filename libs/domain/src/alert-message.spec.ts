import { AlertContext, builtInWording, humanDuration, renderAlert, templateData } from './alert-message';

const T = Date.parse('2026-11-21T12:00:00Z');
const ctx = (overrides: Partial<AlertContext> = {}): AlertContext => ({
  kind: 'down',
  at: T,
  sensor: {
    name: 'Shop',
    type: 'http',
    target: 'https://shop.example',
    group: 'web',
    tags: ['eu'],
    status: 'down',
  },
  result: { message: 'HTTP 503', latency_ms: 120, status_code: 503 },
  downSince: T - 5 * 60_000,
  downForMs: 5 * 60_000,
  url: 'https://status.example/sensors/3',
  ...overrides,
});

describe('humanDuration', () => {
  it.each([
    [0, '0s'],
    [45_000, '45s'],
    [5 * 60_000 + 12_000, '5m 12s'],
    [2 * 3600_000 + 5 * 60_000, '2h 5m'],
    [3 * 86400_000 + 3600_000 + 1000, '3d 1h'],
  ])('%p ms → %p', (ms, text) => {
    expect(humanDuration(ms)).toBe(text);
  });
});

describe('templateData', () => {
  it('has every variable of the specification', () => {
    expect(templateData(ctx())).toEqual({
      Name: 'Shop',
      Type: 'http',
      Target: 'https://shop.example',
      Group: 'web',
      Tags: ['eu'],
      Status: 'down',
      Message: 'HTTP 503',
      LatencyMS: 120,
      StatusCode: 503,
      DownSince: '2026-11-21T11:55:00.000Z',
      DownFor: '5m',
      Time: '2026-11-21T12:00:00.000Z',
      URL: 'https://status.example/sensors/3',
      Event: 'down',
    });
  });
});

describe('renderAlert', () => {
  it('renders both templates against the event', () => {
    expect(
      renderAlert(
        ctx(),
        '{{.Name}} is {{.Status}}',
        '{{.Message}} after {{.LatencyMS}} ms{{with .URL}} {{.}}{{end}}',
      ),
    ).toEqual({
      title: 'Shop is down',
      message: 'HTTP 503 after 120 ms https://status.example/sensors/3',
    });
  });

  it.each([
    ['an empty template', ''],
    ['a template that does not parse', '{{.Name'],
    ['a template that fails to execute', '{{lt .Name 3}}'],
  ])('falls back to the built-in wording for %s', (_name, template) => {
    expect(renderAlert(ctx(), template, template)).toEqual(builtInWording(ctx()));
  });

  it('built-in wording differs per kind and names the outage length on recovery', () => {
    const kinds = (['down', 'up', 'reminder', 'test'] as const).map(
      (kind) => builtInWording(ctx({ kind })).title,
    );
    expect(new Set(kinds).size).toBe(4);
    expect(builtInWording(ctx({ kind: 'up', downForMs: 3_725_000 })).message).toContain('1h 2m');
  });
});
