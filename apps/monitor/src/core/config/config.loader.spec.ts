import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadConfig } from './config.loader';
import { ConfigError, MonitorConfig } from './monitor-config';

const FULL_YAML = `# Monitor configuration: every key, as an operator would write it.
listen: "127.0.0.1:9000"
data_dir: ./state
base_url: https://status.example.com/
trust_proxy: true
log_level: debug

retention:
  raw: 14          # days
  hourly: 52w

sites:
  - name: home
  - name: frankfurt
    kind: external
    lat: 50.11
    lon: 8.68
  - name: null-island
    kind: external
    lat: 0
    lon: 0

channels:
  - name: ops-hook
    type: webhook
    config:
      url: https://hooks.example.com/monitor
      headers:
        X-Token: abc123
    title_template: "{{sensor}} is {{state}}"
  - name: phone
    type: push_topic
    enabled: false
    config:
      topic: monitor-alerts

sensors:
  - name: website
    type: http
    target: https://www.example.com/health
    interval: 30
    retries: 2
    reminder_every: 3600
    group: public
    tags: [prod, web]
    site: frankfurt
    channels: [ops-hook, phone]
    options:
      expected_status: 200
  - name: database
    type: tcp
    target: db.internal:5432
    site: home
  - name: gateway
    type: ping
    target: 192.168.1.1
    enabled: false

maintenance:
  - name: db-upgrade
    starts_at: 2024-06-01T22:00:00+02:00
    ends_at: "2024-06-01T23:30:00Z"
    sensors: [database]
`;

let dir: string;
let cwd: string;

function write(name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text, 'utf8');
  return file;
}

function catchConfigError(run: () => unknown): ConfigError {
  let thrown: unknown;
  try {
    run();
  } catch (error) {
    thrown = error;
  }
  if (thrown === undefined) throw new Error('expected a ConfigError, but nothing was thrown');
  expect(thrown).toBeInstanceOf(ConfigError);
  const error = thrown as ConfigError;
  expect(error.message).not.toMatch(/[\r\n]/);
  return error;
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'monitor-config-'));
  cwd = path.join(dir, 'work');
  fs.mkdirSync(cwd);
});

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('loadConfig with a full file', () => {
  let file: string;
  let config: MonitorConfig;

  beforeAll(() => {
    file = write('full.yaml', FULL_YAML);
    config = loadConfig({ config: file }, {}, cwd);
  });

  it('reads the scalar keys', () => {
    expect(config.config_file).toBe(file);
    expect(config.listen).toEqual({ host: '127.0.0.1', port: 9000 });
    expect(config.base_url).toBe('https://status.example.com');
    expect(config.trust_proxy).toBe(true);
    expect(config.log_level).toBe('debug');
    expect(config.retention).toEqual({ raw_seconds: 14 * 86400, hourly_seconds: 52 * 7 * 86400 });
  });

  it('resolves a relative data_dir against the working directory, not the file', () => {
    expect(config.data_dir).toBe(path.join(cwd, 'state'));
  });

  it('reads the sites, keeping 0 as a real coordinate', () => {
    expect(config.sites).toEqual([
      { name: 'home', kind: 'local', lat: null, lon: null },
      { name: 'frankfurt', kind: 'external', lat: 50.11, lon: 8.68 },
      { name: 'null-island', kind: 'external', lat: 0, lon: 0 },
    ]);
  });

  it('reads the channels with their nested config', () => {
    expect(config.channels).toEqual([
      {
        name: 'ops-hook',
        type: 'webhook',
        config: { url: 'https://hooks.example.com/monitor', headers: { 'X-Token': 'abc123' } },
        enabled: true,
        title_template: '{{sensor}} is {{state}}',
        body_template: '',
      },
      {
        name: 'phone',
        type: 'push_topic',
        config: { topic: 'monitor-alerts' },
        enabled: false,
        title_template: '',
        body_template: '',
      },
    ]);
  });

  it('reads the sensors and fills in defaults', () => {
    expect(config.sensors).toEqual([
      {
        name: 'website',
        type: 'http',
        target: 'https://www.example.com/health',
        interval: 30,
        retries: 2,
        reminder_every: 3600,
        group: 'public',
        tags: ['prod', 'web'],
        site: 'frankfurt',
        enabled: true,
        options: { expected_status: 200 },
        channels: ['ops-hook', 'phone'],
      },
      {
        name: 'database',
        type: 'tcp',
        target: 'db.internal:5432',
        interval: 60,
        retries: 3,
        reminder_every: 0,
        group: '',
        tags: [],
        site: 'home',
        enabled: true,
        options: {},
        channels: [],
      },
      expect.objectContaining({ name: 'gateway', type: 'ping', target: '192.168.1.1', enabled: false }),
    ]);
  });

  it('reads the maintenance windows (unquoted and quoted timestamps) in UTC', () => {
    expect(config.maintenance).toEqual([
      {
        name: 'db-upgrade',
        starts_at: '2024-06-01T20:00:00.000Z',
        ends_at: '2024-06-01T23:30:00.000Z',
        sensors: ['database'],
      },
    ]);
  });

  it('keeps the environment-only values at their defaults', () => {
    expect(config.identity).toEqual({ puid: 500, pgid: 500, umask: 0o022 });
    expect(config.admin_password).toBeNull();
  });

  it('lets the environment and flags override the file', () => {
    const overridden = loadConfig(
      { config: file, logLevel: 'warn' },
      { MONITOR_LISTEN: ':7000', MONITOR_TRUST_PROXY: 'no', MONITOR_LOG_LEVEL: 'error' },
      cwd,
    );
    expect(overridden.listen).toEqual({ host: '0.0.0.0', port: 7000 });
    expect(overridden.trust_proxy).toBe(false);
    expect(overridden.log_level).toBe('warn');
    expect(overridden.base_url).toBe('https://status.example.com');
  });
});

describe('loadConfig: choosing the file', () => {
  it('uses defaults and reads no file when none is named', () => {
    const config = loadConfig({}, {}, cwd);
    expect(config.config_file).toBeNull();
    expect(config.listen).toEqual({ host: '0.0.0.0', port: 8080 });
    expect(config.data_dir).toBe(path.join(cwd, 'data'));
  });

  it('reads MONITOR_CONFIG relative to the working directory', () => {
    fs.writeFileSync(path.join(cwd, 'env.yaml'), 'log_level: warn\n');
    const config = loadConfig({}, { MONITOR_CONFIG: 'env.yaml' }, cwd);
    expect(config.config_file).toBe(path.join(cwd, 'env.yaml'));
    expect(config.log_level).toBe('warn');
  });

  it('prefers --config over MONITOR_CONFIG (the env file is never opened)', () => {
    const flagFile = write('flag.yaml', 'log_level: error\n');
    const config = loadConfig({ config: flagFile }, { MONITOR_CONFIG: path.join(dir, 'missing.yaml') }, cwd);
    expect(config.config_file).toBe(flagFile);
    expect(config.log_level).toBe('error');
  });
});

describe('loadConfig: unusable files', () => {
  it.each([
    ['empty', ''],
    ['whitespace only', '\n\n   \n'],
    ['comments only', '# nothing configured yet\n# listen: :9999\n'],
    ['an explicit empty document', '---\n'],
  ])('uses the defaults for an %s file', (_label, text) => {
    const file = write(`blank-${_label.replace(/\W+/g, '-')}.yaml`, text);
    const config = loadConfig({ config: file }, {}, cwd);
    expect(config).toEqual({ ...loadConfig({}, {}, cwd), config_file: file });
  });

  it('names the path of a missing file', () => {
    const missing = path.join(dir, 'nowhere', 'monitor.yaml');
    const error = catchConfigError(() => loadConfig({ config: missing }, {}, cwd));
    expect(error.message).toMatch(/^invalid configuration: config: /);
    expect(error.message).toContain(missing);
    expect(error.message).toContain('ENOENT');
  });

  it('names the path when the config is a directory', () => {
    const error = catchConfigError(() => loadConfig({ config: dir }, {}, cwd));
    expect(error.message).toContain(dir);
    expect(error.message).toContain('EISDIR');
  });

  it.each([
    ['an unclosed flow sequence', 'listen: ":8080"\nretention: [1, 2\nlog_level: info\n', 3],
    // The scanner only notices the missing quote at the end of the input.
    ['an unclosed quote', 'log_level: info\nlisten: ":8080\ndata_dir: x\n', 4],
    ['bad indentation', 'sites:\n  - name: a\n kind: local\n', 3],
    ['a tab indentation', 'retention:\n\traw: 7\n', 2],
  ])('names the file and the line of a YAML syntax error: %s', (_label, text, line) => {
    const file = write(`syntax-${line}-${_label.replace(/\W+/g, '-')}.yaml`, text);
    const error = catchConfigError(() => loadConfig({ config: file }, {}, cwd));
    expect(error.message).toMatch(/^invalid configuration: config: /);
    expect(error.message).toContain(`${file} line ${line}:`);
  });

  it('refuses a duplicate key, naming the file and the line of the repeat', () => {
    const file = write('duplicate.yaml', 'log_level: info\nlisten: ":8080"\nlog_level: debug\n');
    const error = catchConfigError(() => loadConfig({ config: file }, {}, cwd));
    expect(error.message).toContain(`${file} line 3:`);
    expect(error.message).toMatch(/unique/i);
  });

  it('refuses a duplicate key nested inside an item', () => {
    const file = write('duplicate-nested.yaml', 'sensors:\n  - name: a\n    type: http\n    name: b\n');
    const error = catchConfigError(() => loadConfig({ config: file }, {}, cwd));
    expect(error.message).toContain(`${file} line 4:`);
  });

  it('refuses several YAML documents in one file', () => {
    const file = write('multi.yaml', 'log_level: info\n---\nlog_level: debug\n');
    const error = catchConfigError(() => loadConfig({ config: file }, {}, cwd));
    expect(error.message).toContain(file);
  });

  it('refuses a file whose top level is a list, naming the file', () => {
    const file = write('list.yaml', '- listen: ":8080"\n');
    const error = catchConfigError(() => loadConfig({ config: file }, {}, cwd));
    expect(error.message).toContain(file);
    expect(error.message).toContain('mapping');
  });

  it('refuses a file whose top level is a plain string', () => {
    const file = write('scalar.yaml', 'just some text\n');
    const error = catchConfigError(() => loadConfig({ config: file }, {}, cwd));
    expect(error.message).toContain(file);
  });

  it('refuses an unknown key, naming it and the file', () => {
    const file = write('unknown.yaml', 'listen: ":8080"\nlisten_port: 80\n');
    const error = catchConfigError(() => loadConfig({ config: file }, {}, cwd));
    expect(error.message).toMatch(/^invalid configuration: listen_port: unknown key/);
    expect(error.message).toContain(file);
  });

  it('keeps a quoted key with a line break on one line', () => {
    const file = write('odd-key.yaml', '"log\\nlevel": debug\n');
    const error = catchConfigError(() => loadConfig({ config: file }, {}, cwd));
    expect(error.message).toContain('invalid configuration: "log\\nlevel": unknown key');
  });

  it('reports an invalid value from the file with its key', () => {
    const file = write(
      'bad-interval.yaml',
      'sensors:\n  - {name: a, type: tcp, target: "db:1"}\n  - {name: b, type: tcp, target: "db:2", interval: 86401}\n',
    );
    const error = catchConfigError(() => loadConfig({ config: file }, {}, cwd));
    expect(error.message).toMatch(/^invalid configuration: sensors\[1\]\.interval: /);
    expect(error.message).toContain('86401');
  });

  it('reports a bad retention from the file with its key', () => {
    const file = write('bad-retention.yaml', 'retention:\n  raw: 30m\n');
    const error = catchConfigError(() => loadConfig({ config: file }, {}, cwd));
    expect(error.message).toMatch(/^invalid configuration: retention\.raw /);
  });
});

describe('config/monitor.example.yaml', () => {
  it('is a valid configuration that uses every section', () => {
    const file = path.resolve(__dirname, '../../../../../config/monitor.example.yaml');
    const config = loadConfig({ config: file }, {}, os.tmpdir());
    expect(config.config_file).toBe(file);
    expect(config.sites.length).toBeGreaterThan(0);
    expect(config.channels.length).toBeGreaterThan(0);
    expect(config.sensors.length).toBeGreaterThan(0);
    expect(config.maintenance.length).toBeGreaterThan(0);
    expect(config.status_pages.length).toBeGreaterThan(0);
    expect(config.retention).toEqual({ raw_seconds: 7 * 86400, hourly_seconds: 90 * 86400 });
    expect(config.allowed_hosts).toEqual(['monitor.home.arpa']);
  });
});
