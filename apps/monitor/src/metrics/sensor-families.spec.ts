import { spawnSync } from 'node:child_process';
import { isUp, renderSensorFamilies, type SensorSample } from './sensor-families';

const sample = (over: Partial<SensorSample> = {}): SensorSample => ({
  labels: { sensor: 'api', type: 'http', group: '', site: '' },
  status: 'up',
  latencyMs: 12,
  openIncident: false,
  ...over,
});

const render = async (samples: SensorSample[], perTurn?: number) =>
  (await renderSensorFamilies(samples, perTurn)).join('\n');

describe('sensor families', () => {
  it.each([
    ['up', true],
    ['warn', true],
    ['down', false],
    ['unknown', false],
    ['paused', false],
  ] as const)('counts %s as up: %s', (status, up) => {
    expect(isUp(status)).toBe(up);
  });

  it('escapes quotes, backslashes and newlines in label values, and promtool reads it', async () => {
    const text = await render([
      sample({ labels: { sensor: 'a "b" \\ c\nd', type: 'http', group: 'g', site: 's' } }),
    ]);
    expect(text).toContain(
      'monitor_sensor_up{sensor="a \\"b\\" \\\\ c\\nd",type="http",group="g",site="s"} 1',
    );
    const check = spawnSync('/usr/bin/promtool', ['check', 'metrics'], {
      input: `${text}\n`,
      encoding: 'utf8',
    });
    expect(`${check.stdout}${check.stderr}`).toBe('');
    expect(check.status).toBe(0);
  });

  it('writes HELP and TYPE once per family however many pieces it is rendered in', async () => {
    const samples = Array.from({ length: 7 }, (_, i) =>
      sample({ labels: { sensor: `s${i}`, type: 'tcp', group: '', site: '' } }),
    );
    const text = await render(samples, 2);
    expect(text.match(/^# TYPE monitor_sensor_up gauge$/gm)).toHaveLength(1);
    expect(text.match(/^monitor_sensor_up\{/gm)).toHaveLength(7);
    expect(text.match(/^monitor_sensor_status\{/gm)).toHaveLength(35);
    expect(text).toBe(await render(samples, 100));
  });

  it('leaves out what is unknown: no duration without an answer, no ratio without results, no certificate unseen', async () => {
    const text = await render([
      sample({ latencyMs: null, uptime: { '1d': null, '30d': 0.5 }, certExpiresAt: undefined }),
    ]);
    expect(text).not.toMatch(/^monitor_probe_duration_seconds\{/m);
    expect(text).not.toContain('window="1d"');
    expect(text).toContain(
      'monitor_sensor_uptime_ratio{sensor="api",type="http",group="",site="",window="30d"} 0.5',
    );
    expect(text).not.toMatch(/^monitor_sensor_cert_expiry_timestamp_seconds\{/m);
  });

  it('renders counters, certificate expiry in seconds and open incidents', async () => {
    const text = await render([
      sample({ probes: { success: 3, failure: 1 }, certExpiresAt: 1_800_000_000_500, openIncident: true }),
    ]);
    expect(text).toContain('# TYPE monitor_probes_total counter');
    expect(text).toContain(
      'monitor_probes_total{sensor="api",type="http",group="",site="",result="success"} 3',
    );
    expect(text).toContain(
      'monitor_probes_total{sensor="api",type="http",group="",site="",result="failure"} 1',
    );
    expect(text).toContain(
      'monitor_sensor_cert_expiry_timestamp_seconds{sensor="api",type="http",group="",site=""} 1800000000',
    );
    expect(text).toContain('monitor_open_incidents{sensor="api",type="http",group="",site=""} 1');
  });

  it('renders the families with no series when there are no sensors', async () => {
    const text = await render([]);
    expect(text).toContain('# TYPE monitor_sensor_up gauge');
    expect(text).not.toMatch(/^monitor_/m);
  });
});
