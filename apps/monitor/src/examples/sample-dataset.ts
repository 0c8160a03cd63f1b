import type { SensorType } from '@monitor/contracts';

/** The sample installation: a few sites and sensors of every type, with a week of history. */
export interface SampleSite {
  name: string;
  kind: 'local' | 'external';
  lat: number;
  lon: number;
}

export interface SampleSensor {
  name: string;
  type: SensorType;
  /** `{self}` stands for this monitor's own address (host:port). */
  target: string;
  interval: number;
  group: string;
  tags: string[];
  site: string;
  options: Record<string, unknown>;
  /** Typical latency and how it swings over a day. */
  latencyMs: number;
  /** Invented outages: start (hours before now) and length (minutes), with the probe's message. */
  outages: { hoursAgo: number; minutes: number; message: string }[];
  /** One probe in this many fails on its own (a flaky moment, no incident). */
  flakyOneIn: number;
  message: string;
}

export const SAMPLE_SITES: readonly SampleSite[] = [
  { name: 'Frankfurt', kind: 'local', lat: 50.1109, lon: 8.6821 },
  { name: 'Virginia', kind: 'external', lat: 38.9072, lon: -77.0369 },
  { name: 'Singapore', kind: 'external', lat: 1.3521, lon: 103.8198 },
];

/**
 * Sensors that probe this monitor itself run; the others point at documentation addresses
 * (example.com, 192.0.2.0/24) and are created paused, so sample data never sends traffic to a
 * third party unless someone resumes them.
 */
export const SAMPLE_SENSORS: readonly SampleSensor[] = [
  {
    name: 'Monitor itself',
    type: 'http',
    target: 'http://{self}/healthz',
    interval: 60,
    group: 'Self',
    tags: ['self'],
    site: 'Frankfurt',
    options: { keyword: 'ok' },
    latencyMs: 3,
    outages: [],
    flakyOneIn: 0,
    message: 'HTTP 200',
  },
  {
    name: 'Monitor port',
    type: 'tcp',
    target: '{self}',
    interval: 60,
    group: 'Self',
    tags: ['self'],
    site: 'Frankfurt',
    options: {},
    latencyMs: 1,
    outages: [],
    flakyOneIn: 0,
    message: 'connected',
  },
  {
    name: 'Company website',
    type: 'http',
    target: 'https://www.example.com/',
    interval: 300,
    group: 'Web',
    tags: ['public'],
    site: 'Virginia',
    options: { keyword: 'Example Domain', cert_warn_days: 14 },
    latencyMs: 95,
    outages: [{ hoursAgo: 74, minutes: 25, message: 'HTTP 503' }],
    flakyOneIn: 400,
    message: 'HTTP 200, certificate expires in 61 days',
  },
  {
    name: 'Shop API',
    type: 'http',
    target: 'https://api.example.com/health',
    interval: 300,
    group: 'Web',
    tags: ['public', 'api'],
    site: 'Virginia',
    options: { expected_status: '200' },
    latencyMs: 140,
    outages: [
      { hoursAgo: 30, minutes: 40, message: 'timed out after 10 s' },
      { hoursAgo: 131, minutes: 15, message: 'HTTP 502' },
    ],
    flakyOneIn: 150,
    message: 'HTTP 200',
  },
  {
    name: 'Asia edge',
    type: 'http',
    target: 'https://sg.example.com/',
    interval: 300,
    group: 'Web',
    tags: ['public', 'edge'],
    site: 'Singapore',
    options: {},
    latencyMs: 210,
    outages: [],
    flakyOneIn: 90,
    message: 'HTTP 200',
  },
  {
    name: 'Mail submission',
    type: 'tcp',
    target: 'mail.example.com:587',
    interval: 300,
    group: 'Mail',
    tags: ['mail'],
    site: 'Frankfurt',
    options: {},
    latencyMs: 22,
    outages: [{ hoursAgo: 50, minutes: 10, message: 'connection refused' }],
    flakyOneIn: 0,
    message: 'connected',
  },
  {
    name: 'DNS www record',
    type: 'dns',
    target: 'www.example.com',
    interval: 300,
    group: 'DNS',
    tags: ['dns'],
    site: '',
    options: { server: '192.0.2.53', record_type: 'A', expected: '192.0.2.' },
    latencyMs: 12,
    outages: [],
    flakyOneIn: 300,
    message: 'A 192.0.2.80',
  },
  {
    name: 'Office gateway',
    type: 'ping',
    target: '192.0.2.1',
    interval: 300,
    group: 'Network',
    tags: ['office'],
    site: 'Frankfurt',
    options: { count: 3 },
    latencyMs: 2,
    outages: [{ hoursAgo: 100, minutes: 55, message: 'no reply from 192.0.2.1' }],
    flakyOneIn: 0,
    message: 'reply from 192.0.2.1',
  },
  {
    name: 'Core switch uptime',
    type: 'snmp',
    target: '192.0.2.10',
    interval: 300,
    group: 'Network',
    tags: ['office'],
    site: 'Frankfurt',
    options: { oid: '1.3.6.1.2.1.1.3.0', community: 'public', min: 1 },
    latencyMs: 4,
    outages: [],
    flakyOneIn: 0,
    message: 'OID 1.3.6.1.2.1.1.3.0 = 512345600',
  },
  {
    name: 'Database container',
    type: 'docker',
    target: 'postgres',
    interval: 300,
    group: 'Containers',
    tags: ['db'],
    site: 'Frankfurt',
    options: {},
    latencyMs: 6,
    outages: [{ hoursAgo: 12, minutes: 5, message: 'container postgres is restarting (3 restarts)' }],
    flakyOneIn: 0,
    message: 'container postgres is running (0 restarts)',
  },
];

export const SAMPLE_DAYS = 7;
