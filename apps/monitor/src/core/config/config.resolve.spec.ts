import * as os from 'node:os';
import * as path from 'node:path';
import { ConfigFlags, ConfigInputs, configFilePath, resolveConfig } from './config.resolve';
import { ConfigError, MonitorConfig } from './monitor-config';

type Env = Record<string, string | undefined>;

const CWD = path.resolve('/srv/monitor');
const FILE_PATH = path.resolve('/etc/monitor/monitor.yaml');

interface Case {
  /** The parsed YAML document; omit for "no file". */
  file?: unknown;
  env?: Env;
  flags?: ConfigFlags;
  cwd?: string;
}

function resolve(input: Case = {}): MonitorConfig {
  const inputs: ConfigInputs = {
    env: input.env ?? {},
    flags: input.flags ?? {},
    cwd: input.cwd ?? CWD,
  };
  if ('file' in input) inputs.file = { path: FILE_PATH, data: input.file };
  return resolveConfig(inputs);
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
  return thrown as ConfigError;
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The error is a ConfigError whose single-line message names `key` right after the prefix. */
function expectKeyError(run: () => unknown, key: string, ...fragments: string[]): ConfigError {
  const error = catchConfigError(run);
  expect(error.name).toBe('ConfigError');
  expect(error.message).not.toMatch(/[\r\n]/);
  expect(error.message).toMatch(new RegExp(`^invalid configuration: ${escapeRegExp(key)}[ :]`));
  for (const fragment of fragments) expect(error.message).toContain(fragment);
  return error;
}

const DEFAULT_CONFIG: MonitorConfig = {
  listen: { host: '0.0.0.0', port: 8080 },
  data_dir: path.join(CWD, 'data'),
  database_url: null,
  config_file: null,
  base_url: '',
  allowed_hosts: [],
  instance_name: `${os.hostname()}:8080`,
  cluster: { dead_after_seconds: 15 },
  trust_proxy: false,
  log_level: 'info',
  retention: { raw_seconds: 7 * 86400, hourly_seconds: 90 * 86400 },
  sites: [],
  channels: [],
  sensors: [],
  maintenance: [],
  status_pages: [],
  identity: { puid: 500, pgid: 500, umask: 0o022 },
  admin_password: null,
};

describe('resolveConfig defaults', () => {
  it('uses every documented default when nothing is given', () => {
    expect(resolve()).toEqual(DEFAULT_CONFIG);
  });

  it.each([
    ['null (empty YAML file)', null],
    ['undefined', undefined],
    ['an empty mapping', {}],
  ])('uses the defaults for a file whose document is %s, and records the file path', (_label, data) => {
    expect(resolve({ file: data })).toEqual({ ...DEFAULT_CONFIG, config_file: FILE_PATH });
  });

  it('resolves the default data_dir against the working directory', () => {
    expect(resolve({ cwd: path.resolve('/opt/elsewhere') }).data_dir).toBe(
      path.resolve('/opt/elsewhere/data'),
    );
  });
});

describe('resolveConfig precedence: defaults < file < environment < flags', () => {
  type Source = 'file' | 'env' | 'flag';
  interface ScalarSpec {
    key: keyof MonitorConfig;
    env: string;
    flag?: keyof ConfigFlags;
    given: Partial<Record<Source, unknown>>;
    expected: Record<Source | 'default', unknown>;
  }

  const SCALARS: ScalarSpec[] = [
    {
      key: 'listen',
      env: 'MONITOR_LISTEN',
      flag: 'listen',
      given: { file: '10.0.0.1:1001', env: '10.0.0.2:1002', flag: '10.0.0.3:1003' },
      expected: {
        default: { host: '0.0.0.0', port: 8080 },
        file: { host: '10.0.0.1', port: 1001 },
        env: { host: '10.0.0.2', port: 1002 },
        flag: { host: '10.0.0.3', port: 1003 },
      },
    },
    {
      key: 'data_dir',
      env: 'MONITOR_DATA_DIR',
      flag: 'dataDir',
      given: { file: 'from-file', env: '/var/lib/from-env', flag: 'from-flag' },
      expected: {
        default: path.join(CWD, 'data'),
        file: path.join(CWD, 'from-file'),
        env: path.resolve('/var/lib/from-env'),
        flag: path.join(CWD, 'from-flag'),
      },
    },
    {
      key: 'database_url',
      env: 'MONITOR_DATABASE_URL',
      flag: 'databaseUrl',
      given: { file: 'postgres://f@db/file', env: 'postgres://e@db/env', flag: 'postgresql://g@db/flag' },
      expected: {
        default: null,
        file: 'postgres://f@db/file',
        env: 'postgres://e@db/env',
        flag: 'postgresql://g@db/flag',
      },
    },
    {
      key: 'log_level',
      env: 'MONITOR_LOG_LEVEL',
      flag: 'logLevel',
      given: { file: 'warn', env: 'error', flag: 'debug' },
      expected: { default: 'info', file: 'warn', env: 'error', flag: 'debug' },
    },
    {
      key: 'base_url',
      env: 'MONITOR_BASE_URL',
      given: { file: 'https://file.example.com', env: 'https://env.example.com' },
      expected: {
        default: '',
        file: 'https://file.example.com',
        env: 'https://env.example.com',
        flag: undefined,
      },
    },
  ];

  const subsets = <T>(items: T[]): T[][] =>
    items.reduce<T[][]>((all, item) => [...all, ...all.map((set) => [...set, item])], [[]]);

  const rows = SCALARS.flatMap((spec) => {
    const sources: Source[] = spec.flag ? ['file', 'env', 'flag'] : ['file', 'env'];
    return subsets(sources).map((present) => {
      const winner = present.length === 0 ? 'default' : present[present.length - 1];
      const label = present.length === 0 ? 'nothing' : present.join(' + ');
      return [spec.key, label, spec, present, winner] as const;
    });
  });

  it.each(rows)('%s: with %s given, the highest source wins', (_key, _label, spec, present, winner) => {
    const input: Case = { env: {}, flags: {} };
    if (present.includes('file')) input.file = { [spec.key]: spec.given.file };
    if (present.includes('env')) input.env = { [spec.env]: spec.given.env as string };
    if (present.includes('flag')) input.flags = { [spec.flag as string]: spec.given.flag as string };
    expect(resolve(input)[spec.key]).toEqual(spec.expected[winner]);
  });

  it.each([
    ['default only', {}, false],
    ['file true', { file: { trust_proxy: true } }, true],
    ['env true', { env: { MONITOR_TRUST_PROXY: 'true' } }, true],
    ['file true, env false', { file: { trust_proxy: true }, env: { MONITOR_TRUST_PROXY: 'false' } }, false],
    ['file false, env true', { file: { trust_proxy: false }, env: { MONITOR_TRUST_PROXY: 'true' } }, true],
  ] as [string, Case, boolean][])('trust_proxy: %s', (_label, input, expected) => {
    expect(resolve(input).trust_proxy).toBe(expected);
  });

  it.each([
    ['MONITOR_LISTEN', 'listen', '10.0.0.1:1001', { host: '10.0.0.1', port: 1001 }],
    ['MONITOR_DATA_DIR', 'data_dir', '/from/file', path.resolve('/from/file')],
    ['MONITOR_LOG_LEVEL', 'log_level', 'warn', 'warn'],
    ['MONITOR_BASE_URL', 'base_url', 'https://file.example.com', 'https://file.example.com'],
    ['MONITOR_TRUST_PROXY', 'trust_proxy', true, true],
  ] as const)(
    'an empty %s counts as unset, so the file value of %s stays',
    (envName, key, fileValue, expected) => {
      const config = resolve({ file: { [key]: fileValue }, env: { [envName]: '' } });
      expect(config[key]).toEqual(expected);
    },
  );

  it('an empty environment variable with no file falls back to the default', () => {
    const config = resolve({
      env: { MONITOR_LISTEN: '', MONITOR_DATA_DIR: '', MONITOR_LOG_LEVEL: '', MONITOR_TRUST_PROXY: '' },
    });
    expect(config).toEqual(DEFAULT_CONFIG);
  });

  it('a flag wins even over a valid environment value, so a bad flag is reported', () => {
    expectKeyError(
      () => resolve({ env: { MONITOR_LOG_LEVEL: 'warn' }, flags: { logLevel: 'loud' } }),
      'log_level',
      '--log-level',
    );
  });

  it.each([
    ['flag', { flags: { listen: 'nope' } }, '(from --listen)'],
    ['environment', { env: { MONITOR_LISTEN: 'nope' } }, '(from MONITOR_LISTEN)'],
    ['file', { file: { listen: 'nope' } }, '(from config file)'],
    ['flag', { flags: { dataDir: ' ' } }, '(from --data-dir)'],
    ['environment', { env: { MONITOR_DATA_DIR: ' ' } }, '(from MONITOR_DATA_DIR)'],
    ['flag', { flags: { logLevel: 'loud' } }, '(from --log-level)'],
    ['environment', { env: { MONITOR_LOG_LEVEL: 'loud' } }, '(from MONITOR_LOG_LEVEL)'],
    ['environment', { env: { MONITOR_BASE_URL: 'ftp://x' } }, '(from MONITOR_BASE_URL)'],
    ['environment', { env: { MONITOR_TRUST_PROXY: 'maybe' } }, '(from MONITOR_TRUST_PROXY)'],
    ['file', { file: { trust_proxy: 'maybe' } }, '(from config file)'],
  ] as [string, Case, string][])(
    'an invalid value from the %s names its origin %s',
    (_label, input, origin) => {
      const error = catchConfigError(() => resolve(input));
      expect(error.message).toContain(origin);
      expect(error.message).not.toMatch(/[\r\n]/);
    },
  );
});

describe('configFilePath', () => {
  it('returns null when neither --config nor MONITOR_CONFIG is set', () => {
    expect(configFilePath({}, {}, CWD)).toBeNull();
  });

  it('treats an empty MONITOR_CONFIG as unset', () => {
    expect(configFilePath({}, { MONITOR_CONFIG: '' }, CWD)).toBeNull();
  });

  it('uses MONITOR_CONFIG, resolved against the working directory', () => {
    expect(configFilePath({}, { MONITOR_CONFIG: 'conf/monitor.yaml' }, CWD)).toBe(
      path.join(CWD, 'conf/monitor.yaml'),
    );
  });

  it('uses --config, resolved against the working directory', () => {
    expect(configFilePath({ config: 'flag.yaml' }, {}, CWD)).toBe(path.join(CWD, 'flag.yaml'));
  });

  it('keeps an absolute path as it is', () => {
    expect(configFilePath({ config: '/etc/monitor.yaml' }, {}, CWD)).toBe(path.resolve('/etc/monitor.yaml'));
  });

  it('lets --config win over MONITOR_CONFIG', () => {
    expect(configFilePath({ config: 'from-flag.yaml' }, { MONITOR_CONFIG: 'from-env.yaml' }, CWD)).toBe(
      path.join(CWD, 'from-flag.yaml'),
    );
  });
});

describe('listen', () => {
  it.each([
    [':8080', '0.0.0.0', 8080],
    ['127.0.0.1:9000', '127.0.0.1', 9000],
    ['[::1]:8080', '::1', 8080],
    ['[::]:443', '::', 443],
    ['localhost:3000', 'localhost', 3000],
    ['0.0.0.0:0', '0.0.0.0', 0],
    [':65535', '0.0.0.0', 65535],
    ['  10.1.2.3:81  ', '10.1.2.3', 81],
  ])('accepts %p as host %p port %p', (text, host, port) => {
    expect(resolve({ flags: { listen: text } }).listen).toEqual({ host, port });
    expect(resolve({ env: { MONITOR_LISTEN: text } }).listen).toEqual({ host, port });
    expect(resolve({ file: { listen: text } }).listen).toEqual({ host, port });
  });

  it('accepts a bare port number in the file as :PORT', () => {
    expect(resolve({ file: { listen: 9090 } }).listen).toEqual({ host: '0.0.0.0', port: 9090 });
  });

  it.each([
    [':65536'],
    [':99999'],
    [':123456'],
    ['127.0.0.1'],
    ['127.0.0.1:'],
    ['localhost'],
    [':http'],
    [':-1'],
    ['::1:8080'],
    ['[::1]'],
    ['[::1]8080'],
    ['a:1:2'],
    ['my host:80'],
    [''],
  ])('refuses %p', (text) => {
    expectKeyError(() => resolve({ flags: { listen: text } }), 'listen', JSON.stringify(text));
  });

  it.each([[true], [['127.0.0.1', 80]], [{ host: 'x', port: 1 }], [80.5], [-1], [70000]])(
    'refuses the file value %p',
    (value) => {
      expectKeyError(() => resolve({ file: { listen: value } }), 'listen');
    },
  );
});

describe('data_dir', () => {
  it.each([
    ['data', path.join(CWD, 'data')],
    ['./var/data', path.join(CWD, 'var/data')],
    ['../shared/data', path.resolve(CWD, '../shared/data')],
    ['store/../data2', path.join(CWD, 'data2')],
    ['/var/lib/monitor', path.resolve('/var/lib/monitor')],
    ['  /padded/dir  ', path.resolve('/padded/dir')],
  ])('resolves %p to %p', (value, expected) => {
    expect(resolve({ file: { data_dir: value } }).data_dir).toBe(expected);
    expect(resolve({ env: { MONITOR_DATA_DIR: value } }).data_dir).toBe(expected);
    expect(resolve({ flags: { dataDir: value } }).data_dir).toBe(expected);
  });

  it('always returns an absolute path', () => {
    expect(path.isAbsolute(resolve({ flags: { dataDir: 'x' } }).data_dir)).toBe(true);
  });

  it.each([[''], ['   '], [42], [true], [['a']], [null]])('refuses the file value %p', (value) => {
    expectKeyError(() => resolve({ file: { data_dir: value } }), 'data_dir');
  });

  it('refuses a blank flag', () => {
    expectKeyError(() => resolve({ flags: { dataDir: '' } }), 'data_dir', '--data-dir');
  });
});

describe('database_url', () => {
  it('keeps SQLite when empty or unset', () => {
    expect(resolve({ file: { database_url: '' } }).database_url).toBeNull();
    expect(resolve({ env: { MONITOR_DATABASE_URL: '' } }).database_url).toBeNull();
    expect(resolve({ file: { database_url: null } }).database_url).toBeNull();
  });

  it.each([
    ['mysql://u:hunter2pw@db/m'],
    ['postgres:///no-host?password=hunter2pw'],
    ['/var/lib/hunter2pw.db'],
    [42],
  ])('refuses %p without repeating it', (value) => {
    for (const run of [
      () => resolve({ file: { database_url: value } }),
      () => resolve({ env: { MONITOR_DATABASE_URL: String(value) } }),
      () => resolve({ flags: { databaseUrl: String(value) } }),
    ]) {
      const error = expectKeyError(run, 'database_url', 'postgres://');
      expect(error.message).not.toContain('hunter2pw');
      expect(error.message).not.toContain('42');
    }
  });
});

describe('base_url', () => {
  it.each([
    ['https://status.example.com/', 'https://status.example.com'],
    ['https://status.example.com', 'https://status.example.com'],
    ['http://example.com/monitor/', 'http://example.com/monitor'],
    ['http://example.com/monitor//', 'http://example.com/monitor'],
    ['https://example.com:8443/a/b', 'https://example.com:8443/a/b'],
    ['HTTPS://Example.COM/', 'https://example.com'],
    ['  https://padded.example.com/  ', 'https://padded.example.com'],
    ['', ''],
  ])('accepts %p as %p', (value, expected) => {
    expect(resolve({ file: { base_url: value } }).base_url).toBe(expected);
  });

  it('accepts an empty (null) base_url in the file', () => {
    expect(resolve({ file: { base_url: null } }).base_url).toBe('');
  });

  it('accepts the value from MONITOR_BASE_URL and trims the trailing slash', () => {
    expect(resolve({ env: { MONITOR_BASE_URL: 'https://env.example.com/up/' } }).base_url).toBe(
      'https://env.example.com/up',
    );
  });

  it.each([
    ['ftp://example.com'],
    ['file:///etc/passwd'],
    ['javascript:alert(1)'],
    ['https://example.com/?a=1'],
    ['https://example.com/path?x'],
    ['https://example.com/?'],
    ['https://example.com/#top'],
    ['https://example.com/#'],
    ['example.com'],
    ['not a url'],
    ['/relative/path'],
    ['   '],
  ])('refuses %p', (value) => {
    expectKeyError(() => resolve({ file: { base_url: value } }), 'base_url');
  });

  it.each([[42], [true], [['https://x.com']], [{ url: 'https://x.com' }]])(
    'refuses the file value %p',
    (value) => {
      expectKeyError(() => resolve({ file: { base_url: value } }), 'base_url');
    },
  );
});

describe('allowed_hosts', () => {
  it('takes a YAML list or a comma-separated environment value, lower case, each once', () => {
    expect(
      resolve({ file: { allowed_hosts: ['Monitor.Example.com', 'nas.local.', 'monitor.example.com'] } })
        .allowed_hosts,
    ).toEqual(['monitor.example.com', 'nas.local']);
    expect(resolve({ env: { MONITOR_ALLOWED_HOSTS: ' a.example.com, b ,' } }).allowed_hosts).toEqual([
      'a.example.com',
      'b',
    ]);
    expect(
      resolve({
        file: { allowed_hosts: ['file.example.com'] },
        env: { MONITOR_ALLOWED_HOSTS: 'env.example.com' },
      }).allowed_hosts,
    ).toEqual(['env.example.com']);
    expect(resolve({ file: { allowed_hosts: 'one.example.com' } }).allowed_hosts).toEqual([
      'one.example.com',
    ]);
    expect(resolve({ file: { allowed_hosts: null } }).allowed_hosts).toEqual([]);
    expect(resolve({ file: { allowed_hosts: [] } }).allowed_hosts).toEqual([]);
  });

  it.each([
    [['https://monitor.example.com']],
    [['monitor.example.com:8080']],
    [['monitor.example.com/path']],
    [['under_score.example.com']],
    [['two words']],
    [['-leading.example.com']],
    [['']],
    [[42]],
    [{ host: 'monitor.example.com' }],
    [true],
  ])('refuses the file value %p, naming the key', (value) => {
    expectKeyError(() => resolve({ file: { allowed_hosts: value } }), 'allowed_hosts', 'host names');
  });

  it('refuses a bad environment value, naming the variable', () => {
    expectKeyError(
      () => resolve({ env: { MONITOR_ALLOWED_HOSTS: 'good.example.com,http://bad' } }),
      'allowed_hosts',
      'MONITOR_ALLOWED_HOSTS',
      '"http://bad"',
    );
  });
});

describe('trust_proxy', () => {
  it.each([
    ['true', true],
    ['false', false],
    ['1', true],
    ['0', false],
    ['yes', true],
    ['no', false],
    ['on', true],
    ['off', false],
    ['TRUE', true],
    [' Yes ', true],
    ['No', false],
  ])('MONITOR_TRUST_PROXY=%p is %p', (text, expected) => {
    expect(resolve({ env: { MONITOR_TRUST_PROXY: text } }).trust_proxy).toBe(expected);
  });

  it.each([['maybe'], ['2'], ['truee'], ['y'], ['-1'], ['enabled']])(
    'refuses MONITOR_TRUST_PROXY=%p',
    (text) => {
      expectKeyError(
        () => resolve({ env: { MONITOR_TRUST_PROXY: text } }),
        'trust_proxy',
        'MONITOR_TRUST_PROXY',
        JSON.stringify(text),
      );
    },
  );

  it.each([
    [true, true],
    [false, false],
    ['yes', true],
  ])('accepts the file value %p', (value, expected) => {
    expect(resolve({ file: { trust_proxy: value } }).trust_proxy).toBe(expected);
  });

  it.each([[1], [0], [null], [['true']]])('refuses the file value %p', (value) => {
    expectKeyError(() => resolve({ file: { trust_proxy: value } }), 'trust_proxy');
  });
});

describe('log_level', () => {
  it.each([['debug'], ['info'], ['warn'], ['error']])('accepts %p from each source', (level) => {
    expect(resolve({ file: { log_level: level } }).log_level).toBe(level);
    expect(resolve({ env: { MONITOR_LOG_LEVEL: level } }).log_level).toBe(level);
    expect(resolve({ flags: { logLevel: level } }).log_level).toBe(level);
  });

  it.each([
    ['WARN', 'warn'],
    [' Debug ', 'debug'],
  ])('normalizes %p to %p', (value, expected) => {
    expect(resolve({ env: { MONITOR_LOG_LEVEL: value } }).log_level).toBe(expected);
  });

  it.each([['verbose'], ['warning'], ['trace'], ['fatal'], ['']])('refuses %p', (value) => {
    expectKeyError(() => resolve({ flags: { logLevel: value } }), 'log_level', 'debug, info, warn, error');
  });

  it.each([[3], [true], [['info']]])('refuses the file value %p', (value) => {
    expectKeyError(() => resolve({ file: { log_level: value } }), 'log_level');
  });
});

describe('retention', () => {
  const DAY = 86400;

  it.each([
    ['numbers of days', { raw: 7, hourly: 90 }, 7 * DAY, 90 * DAY],
    ['duration strings', { raw: '36h', hourly: '30d' }, 36 * 3600, 30 * DAY],
    ['a bare number as a string', { raw: '3', hourly: '4' }, 3 * DAY, 4 * DAY],
    ['weeks', { raw: '1w', hourly: '52w' }, 7 * DAY, 364 * DAY],
    ['the 1h minimum for raw', { raw: '1h', hourly: '1h' }, 3600, 3600],
    ['3600 seconds', { raw: '3600s' }, 3600, 90 * DAY],
    ['equal raw and hourly', { raw: '14d', hourly: '2w' }, 14 * DAY, 14 * DAY],
    ['a fraction of a day', { raw: 0.5 }, DAY / 2, 90 * DAY],
    ['only raw (hourly default)', { raw: '2d' }, 2 * DAY, 90 * DAY],
    ['only hourly (raw default)', { hourly: '365d' }, 7 * DAY, 365 * DAY],
    ['null subkeys (defaults)', { raw: null, hourly: null }, 7 * DAY, 90 * DAY],
    ['an empty mapping (defaults)', {}, 7 * DAY, 90 * DAY],
    ['null (defaults)', null, 7 * DAY, 90 * DAY],
  ])('accepts %s', (_label, retention, raw, hourly) => {
    expect(resolve({ file: { retention } }).retention).toEqual({ raw_seconds: raw, hourly_seconds: hourly });
  });

  it.each([
    ['raw under 1h', { raw: '59m' }, 'retention.raw', '1h'],
    ['raw of 3599s', { raw: '3599s' }, 'retention.raw', '1h'],
    ['raw of zero days', { raw: 0 }, 'retention.raw', '0'],
    ['a negative raw', { raw: -1 }, 'retention.raw', '-1'],
    ['a word for raw', { raw: 'forever' }, 'retention.raw', '"forever"'],
    ['raw as a boolean', { raw: true }, 'retention.raw', 'true'],
    ['hourly spelled out', { hourly: '7 days' }, 'retention.hourly', '"7 days"'],
    ['an unknown unit', { hourly: '1y' }, 'retention.hourly', '"1y"'],
    ['hourly shorter than raw', { raw: '10d', hourly: '9d' }, 'retention.hourly', 'retention.raw'],
    ['raw above the default hourly', { raw: '100d' }, 'retention.hourly', 'retention.raw'],
    ['an unknown subkey', { raw: '7d', daily: '1y' }, 'retention.daily', 'unknown key'],
  ])('refuses %s', (_label, retention, key, fragment) => {
    expectKeyError(() => resolve({ file: { retention } }), key, fragment);
  });

  it.each([['7d'], [7], [['7d', '90d']], [true]])(
    'refuses a retention that is not a mapping: %p',
    (value) => {
      expectKeyError(() => resolve({ file: { retention: value } }), 'retention', 'mapping');
    },
  );
});

describe('file shape', () => {
  it.each([['listn'], ['port'], ['admin_password'], ['puid'], ['Listen'], ['retention.raw']])(
    'refuses the unknown top-level key %p and names the file',
    (key) => {
      expectKeyError(() => resolve({ file: { [key]: 'x' } }), key, 'unknown key', FILE_PATH);
    },
  );

  it('refuses an unknown key next to valid ones', () => {
    expectKeyError(() => resolve({ file: { listen: ':80', logging: 'debug' } }), 'logging', 'unknown key');
  });

  it.each([
    ['a line feed', 'bad\nkey', '"bad\\nkey"'],
    ['a carriage return', 'bad\r\nkey', '"bad\\r\\nkey"'],
    ['U+2028', 'line\u2028separator', '"line\\u2028separator"'],
    ['U+0085', 'next\u0085line', '"next\\u0085line"'],
  ])('keeps the message on one line for an unknown key holding %s, shown as %s', (_label, key, shown) => {
    const error = catchConfigError(() => resolve({ file: { [key]: 1 } }));
    expect(error.message).not.toMatch(/[\r\n\u0085\u2028\u2029]/);
    expect(error.message).toBe(`invalid configuration: ${shown}: unknown key (in ${FILE_PATH})`);
  });

  it.each([[['listen', ':80']], ['listen: :80'], [42], [true]])(
    'refuses a top level that is not a mapping: %p',
    (data) => {
      expectKeyError(() => resolve({ file: data }), FILE_PATH, 'mapping');
    },
  );

  it('records the path of the file the configuration came from', () => {
    expect(resolve({ file: { log_level: 'debug' } }).config_file).toBe(FILE_PATH);
  });
});

describe('identity: PUID, PGID, UMASK', () => {
  it.each([
    ['0', 0],
    ['1000', 1000],
    ['2147483647', 2147483647],
    [' 1001 ', 1001],
    ['', 500],
  ])('PUID=%p and PGID=%p are %p', (text, expected) => {
    expect(resolve({ env: { PUID: text } }).identity.puid).toBe(expected);
    expect(resolve({ env: { PGID: text } }).identity.pgid).toBe(expected);
  });

  it('reads PUID and PGID independently', () => {
    expect(resolve({ env: { PUID: '1000', PGID: '100' } }).identity).toEqual({
      puid: 1000,
      pgid: 100,
      umask: 0o022,
    });
  });

  it.each([['-1'], ['abc'], ['1.5'], ['2147483648'], ['99999999999'], ['1e3'], ['0x10'], ['root']])(
    'refuses PUID and PGID %p',
    (text) => {
      expectKeyError(() => resolve({ env: { PUID: text } }), 'PUID', JSON.stringify(text));
      expectKeyError(() => resolve({ env: { PGID: text } }), 'PGID', JSON.stringify(text));
    },
  );

  it.each([
    ['022', 0o022],
    ['0022', 0o022],
    ['077', 0o077],
    ['000', 0],
    ['777', 0o777],
    [' 027 ', 0o027],
    ['', 0o022],
  ])('UMASK=%p is %p', (text, expected) => {
    expect(resolve({ env: { UMASK: text } }).identity.umask).toBe(expected);
  });

  it.each([['22'], ['0o22'], ['888'], ['0228'], ['1022'], ['abc'], ['-022']])('refuses UMASK %p', (text) => {
    expectKeyError(() => resolve({ env: { UMASK: text } }), 'UMASK', JSON.stringify(text));
  });
});

describe('admin_password', () => {
  it('passes MONITOR_ADMIN_PASSWORD through unchanged', () => {
    expect(resolve({ env: { MONITOR_ADMIN_PASSWORD: ' s3cret pass ' } }).admin_password).toBe(
      ' s3cret pass ',
    );
  });

  it.each([
    ['unset', undefined],
    ['empty', ''],
  ])('is null when MONITOR_ADMIN_PASSWORD is %s', (_label, value) => {
    expect(resolve({ env: { MONITOR_ADMIN_PASSWORD: value } }).admin_password).toBeNull();
  });
});

describe('sections through resolveConfig', () => {
  it('reads the sections of the file and fills in defaults', () => {
    const config = resolve({
      file: {
        sites: [{ name: 'home' }],
        channels: [{ name: 'ops', type: 'webhook', config: { url: 'https://hooks.example.com' } }],
        sensors: [
          { name: 'web', type: 'http', target: 'https://example.com', site: 'home', channels: ['ops'] },
        ],
        maintenance: [
          {
            name: 'patch',
            starts_at: '2024-06-01T00:00:00Z',
            ends_at: '2024-06-01T01:00:00Z',
            sensors: ['web'],
          },
        ],
      },
    });
    expect(config.sites).toEqual([{ name: 'home', kind: 'local', lat: null, lon: null }]);
    expect(config.channels).toHaveLength(1);
    expect(config.sensors[0]).toMatchObject({ name: 'web', interval: 60, retries: 3, reminder_every: 0 });
    expect(config.maintenance[0].sensors).toEqual(['web']);
  });

  it('reports a section error with the indexed key', () => {
    expectKeyError(
      () =>
        resolve({
          file: {
            sensors: [
              { name: 'a', type: 'tcp', target: 'db:5432' },
              { name: 'b', type: 'tcp', target: 'db:5433', interval: 0 },
            ],
          },
        }),
      'sensors[1].interval',
    );
  });

  it('reports a reference to an undeclared channel', () => {
    expectKeyError(
      () => resolve({ file: { sensors: [{ name: 'a', type: 'ping', target: 'h', channels: ['nope'] }] } }),
      'sensors[0].channels',
      '"nope"',
    );
  });
});

describe('resolveConfig instance name and cluster', () => {
  it('names the instance from MONITOR_INSTANCE_NAME over the file, else <hostname>:<port>', () => {
    expect(resolve({ file: { instance_name: 'east-1' } }).instance_name).toBe('east-1');
    expect(
      resolve({ file: { instance_name: 'east-1' }, env: { MONITOR_INSTANCE_NAME: 'west-2' } }).instance_name,
    ).toBe('west-2');
    expect(resolve({ flags: { listen: '127.0.0.1:9100' } }).instance_name).toBe(`${os.hostname()}:9100`);
  });

  it.each([['x'.repeat(65)], ['a\nb'], [['list']]])('refuses the instance name %j', (name) => {
    expectKeyError(() => resolve({ file: { instance_name: name } }), 'instance_name', '1 to 64 printable');
  });

  it.each([
    ['5s', 5],
    [30, 30],
    ['2m', 120],
  ])('reads cluster.dead_after %j as %i seconds', (value, seconds) => {
    expect(resolve({ file: { cluster: { dead_after: value } } }).cluster.dead_after_seconds).toBe(seconds);
  });

  it.each([['1s'], ['2h'], ['soon'], [0]])('refuses cluster.dead_after %j', (value) => {
    expectKeyError(
      () => resolve({ file: { cluster: { dead_after: value } } }),
      'cluster.dead_after',
      '2s to 1h',
    );
  });

  it('refuses an unknown key under cluster', () => {
    expectKeyError(
      () => resolve({ file: { cluster: { heartbeat: '1s' } } }),
      'cluster.heartbeat',
      'unknown key',
    );
  });
});
