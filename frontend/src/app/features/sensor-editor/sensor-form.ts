import { STORED_SECRET, type Sensor, type SensorInput, type SensorType } from '@monitor/contracts';

/** Pure helpers of the sensor editor: the option catalogue, and draft ⇄ request body conversion. */

export type OptionKind = 'text' | 'textarea' | 'number' | 'boolean' | 'select' | 'secret' | 'headers';

export interface OptionSpec {
  readonly name: string;
  readonly label: string;
  readonly kind: OptionKind;
  readonly help: string;
  /** What the probe uses when the option is not set (booleans start at it). */
  readonly fallback?: string | boolean;
  readonly choices?: readonly string[];
  readonly required?: boolean;
  readonly min?: number;
  readonly max?: number;
}

export interface TypeInfo {
  readonly type: SensorType;
  readonly label: string;
  readonly targetLabel: string;
  readonly targetHint: string;
  readonly targetPlaceholder: string;
}

export const TYPE_INFO: readonly TypeInfo[] = [
  {
    type: 'http',
    label: 'HTTP(S)',
    targetLabel: 'URL',
    targetHint: 'The address to request, with http:// or https://.',
    targetPlaceholder: 'https://example.com/health',
  },
  {
    type: 'tcp',
    label: 'TCP port',
    targetLabel: 'Host and port',
    targetHint: 'host:port, e.g. db.internal:5432 ([::1]:22 for IPv6).',
    targetPlaceholder: 'db.internal:5432',
  },
  {
    type: 'ping',
    label: 'Ping (ICMP)',
    targetLabel: 'Host',
    targetHint: 'A host name or IP address.',
    targetPlaceholder: '192.0.2.10',
  },
  {
    type: 'dns',
    label: 'DNS',
    targetLabel: 'Name to resolve',
    targetHint: 'The name to resolve, e.g. example.com.',
    targetPlaceholder: 'example.com',
  },
  {
    type: 'docker',
    label: 'Docker container',
    targetLabel: 'Container name or id',
    targetHint: 'Up while the container is running.',
    targetPlaceholder: 'web-1',
  },
  {
    type: 'snmp',
    label: 'SNMP (v2c)',
    targetLabel: 'Host',
    targetHint: 'The agent’s host name or IP address (the port is an option).',
    targetPlaceholder: 'switch-1.lan',
  },
];

const TIMEOUT: OptionSpec = {
  name: 'timeout',
  label: 'Time-out (seconds)',
  kind: 'number',
  help: 'How long one probe may take. Default 10; never more than the interval.',
  min: 1,
  max: 86400,
};

const TLS_CHECKS: readonly OptionSpec[] = [
  {
    name: 'insecure_skip_verify',
    label: 'Skip certificate verification',
    kind: 'boolean',
    fallback: false,
    help: 'Accept self-signed or expired certificates. Default off.',
  },
  {
    name: 'cert_warn_days',
    label: 'Certificate warning (days)',
    kind: 'number',
    min: 0,
    max: 3650,
    help: 'Warn when the certificate expires within this many days. Empty: no warning.',
  },
];

export const RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'NS', 'TXT', 'SOA', 'SRV', 'PTR', 'CAA'] as const;

/** The options of each type, in the order the form shows them (decisions.md, "Option names"). */
export const OPTION_SPECS: Readonly<Record<SensorType, readonly OptionSpec[]>> = {
  http: [
    {
      name: 'method',
      label: 'Method',
      kind: 'select',
      choices: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      help: 'HTTP method. Default GET.',
    },
    {
      name: 'headers',
      label: 'Headers',
      kind: 'headers',
      help: 'Request headers, one name and value per row.',
    },
    { name: 'body', label: 'Request body', kind: 'textarea', help: 'Sent as is. Default none.' },
    {
      name: 'expected_status',
      label: 'Expected status codes',
      kind: 'text',
      help: 'Codes and ranges, e.g. 200-299,301. Default 200-399.',
    },
    { name: 'keyword', label: 'Keyword', kind: 'text', help: 'The response body must contain this text.' },
    {
      name: 'invert_keyword',
      label: 'Invert keyword',
      kind: 'boolean',
      fallback: false,
      help: 'Down when the body contains the keyword instead. Default off.',
    },
    {
      name: 'follow_redirects',
      label: 'Follow redirects',
      kind: 'boolean',
      fallback: true,
      help: 'Follow 3xx answers to their target. Default on.',
    },
    ...TLS_CHECKS,
    TIMEOUT,
  ],
  tcp: [
    {
      name: 'tls',
      label: 'TLS handshake',
      kind: 'boolean',
      fallback: false,
      help: 'Do a TLS handshake after connecting. Default off.',
    },
    ...TLS_CHECKS,
    TIMEOUT,
  ],
  ping: [
    {
      name: 'count',
      label: 'Packets',
      kind: 'number',
      min: 1,
      max: 10,
      help: 'Echo requests per probe. Default 1.',
    },
    TIMEOUT,
  ],
  dns: [
    {
      name: 'server',
      label: 'DNS server',
      kind: 'text',
      help: 'host or host:port. Default: the first nameserver of /etc/resolv.conf.',
    },
    { name: 'record_type', label: 'Record type', kind: 'select', choices: RECORD_TYPES, help: 'Default A.' },
    {
      name: 'expected',
      label: 'Expected text',
      kind: 'text',
      help: 'Some returned record must contain this text. Empty: any answer.',
    },
    {
      name: 'transport',
      label: 'Transport',
      kind: 'select',
      choices: ['udp', 'tcp'],
      help: 'Default udp.',
    },
    TIMEOUT,
  ],
  docker: [
    {
      name: 'socket',
      label: 'Docker socket',
      kind: 'text',
      help: 'Path of the Docker API socket. Default /var/run/docker.sock.',
    },
    TIMEOUT,
  ],
  snmp: [
    {
      name: 'community',
      label: 'Community',
      kind: 'secret',
      help: 'The v2c community string (kept secret). Default public.',
    },
    {
      name: 'oid',
      label: 'OID',
      kind: 'text',
      required: true,
      help: 'Required. The object to read, e.g. 1.3.6.1.2.1.1.3.0.',
    },
    { name: 'port', label: 'Port', kind: 'number', min: 1, max: 65535, help: 'Default 161.' },
    { name: 'expected', label: 'Expected text', kind: 'text', help: 'The value must contain this text.' },
    { name: 'min', label: 'Minimum', kind: 'number', help: 'Down below this value (numeric values).' },
    { name: 'max', label: 'Maximum', kind: 'number', help: 'Down above this value (numeric values).' },
    TIMEOUT,
  ],
};

export interface HeaderRow {
  readonly key: string;
  readonly value: string;
}

/** The editor's state: every field as typed (numbers as text), so nothing is lost while typing. */
export interface SensorDraft {
  readonly name: string;
  readonly type: SensorType;
  readonly target: string;
  readonly interval: string;
  readonly retries: string;
  readonly reminderEvery: string;
  readonly group: string;
  /** Comma-separated. */
  readonly tags: string;
  readonly site: string;
  readonly enabled: boolean;
  /** '' for none, else the parent's id. */
  readonly parentId: string;
  readonly channels: readonly number[];
  /** Option values as typed; booleans as booleans. A stored secret left untouched is ''. */
  readonly options: Readonly<Record<string, string | boolean>>;
  readonly headers: readonly HeaderRow[];
  /** Secret options the server holds (sent back as the marker while left empty). */
  readonly stored: readonly string[];
}

export function emptyOptions(type: SensorType): Record<string, string | boolean> {
  return Object.fromEntries(
    OPTION_SPECS[type]
      .filter((spec) => spec.kind !== 'headers')
      .map((spec) => [spec.name, spec.kind === 'boolean' ? spec.fallback === true : '']),
  );
}

export function emptyDraft(type: SensorType = 'http'): SensorDraft {
  return {
    name: '',
    type,
    target: '',
    interval: '60',
    retries: '3',
    reminderEvery: '0',
    group: '',
    tags: '',
    site: '',
    enabled: true,
    parentId: '',
    channels: [],
    options: emptyOptions(type),
    headers: [],
    stored: [],
  };
}

/** A saved sensor as an editable draft. */
export function draftFromSensor(sensor: Sensor): SensorDraft {
  const options = emptyOptions(sensor.type);
  const stored: string[] = [];
  let headers: HeaderRow[] = [];
  for (const spec of OPTION_SPECS[sensor.type]) {
    const value = sensor.options[spec.name];
    if (value === undefined || value === null) continue;
    if (spec.kind === 'headers') {
      if (typeof value === 'object') {
        headers = Object.entries(value as Record<string, unknown>).map(([key, v]) => ({
          key,
          value: String(v),
        }));
      }
    } else if (spec.kind === 'secret' && value === STORED_SECRET) {
      stored.push(spec.name);
      options[spec.name] = '';
    } else if (spec.kind === 'boolean') {
      options[spec.name] = value === true;
    } else {
      options[spec.name] = typeof value === 'string' ? value : String(value as number);
    }
  }
  return {
    name: sensor.name,
    type: sensor.type,
    target: sensor.target,
    interval: String(sensor.interval),
    retries: String(sensor.retries),
    reminderEvery: String(sensor.reminder_every),
    group: sensor.group,
    tags: sensor.tags.join(', '),
    site: sensor.site,
    enabled: sensor.enabled,
    parentId: sensor.parent_id === null ? '' : String(sensor.parent_id),
    channels: [...sensor.channels],
    options,
    headers,
    stored,
  };
}

/** Text as a number when it reads as one; otherwise the text, so the server names the field. */
function numberOrText(text: string): number | string {
  const trimmed = text.trim();
  const value = Number(trimmed);
  return trimmed !== '' && Number.isFinite(value) ? value : trimmed;
}

export function parseTags(text: string): string[] {
  return [
    ...new Set(
      text
        .split(',')
        .map((tag) => tag.trim())
        .filter(Boolean),
    ),
  ];
}

/** The options the user set: empty ones left out, numbers as numbers, booleans only when not the default. */
export function optionsBody(draft: SensorDraft): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  for (const spec of OPTION_SPECS[draft.type]) {
    if (spec.kind === 'headers') {
      const rows = draft.headers.filter((row) => row.key.trim() !== '');
      if (rows.length > 0)
        options[spec.name] = Object.fromEntries(rows.map((row) => [row.key.trim(), row.value]));
      continue;
    }
    const value = draft.options[spec.name];
    if (spec.kind === 'boolean') {
      if (typeof value === 'boolean' && value !== (spec.fallback === true)) options[spec.name] = value;
    } else if (typeof value === 'string' && value.trim() !== '') {
      options[spec.name] =
        spec.kind === 'number' ? numberOrText(value) : spec.kind === 'secret' ? value : value.trim();
    } else if (spec.kind === 'secret' && draft.stored.includes(spec.name)) {
      options[spec.name] = STORED_SECRET;
    }
  }
  return options;
}

/** The request body for POST, PUT or validate. Every field is sent, so a PUT states the whole sensor. */
export function requestBody(draft: SensorDraft): SensorInput {
  const body: Record<string, unknown> = {
    name: draft.name.trim(),
    type: draft.type,
    target: draft.target.trim(),
    group: draft.group.trim(),
    tags: parseTags(draft.tags),
    site: draft.site,
    enabled: draft.enabled,
    options: optionsBody(draft),
    channels: [...draft.channels],
    parent_id: draft.parentId === '' ? null : Number(draft.parentId),
  };
  const numbers: [keyof SensorInput, string][] = [
    ['interval', draft.interval],
    ['retries', draft.retries],
    ['reminder_every', draft.reminderEvery],
  ];
  for (const [key, text] of numbers) if (text.trim() !== '') body[key] = numberOrText(text);
  return body as SensorInput;
}

export function typeInfo(type: SensorType): TypeInfo {
  return TYPE_INFO.find((info) => info.type === type) ?? TYPE_INFO[0]!;
}

/** "Default …, min–max" for an option's help line. */
export function boundsText(spec: OptionSpec): string {
  if (spec.min !== undefined && spec.max !== undefined) return ` Allowed ${spec.min}–${spec.max}.`;
  if (spec.min !== undefined) return ` At least ${spec.min}.`;
  return '';
}
