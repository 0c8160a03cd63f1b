import {
  JSON_OPERATORS,
  STORED_SECRET,
  type Sensor,
  type SensorInput,
  type SensorType,
} from '@monitor/contracts';
import { SENSOR_DEFAULTS, SENSOR_INTERVAL } from '@monitor/domain/sensor.definition';

import { t } from '../../core/i18n/i18n';

/** Pure helpers of the sensor editor: the option catalogue, and draft ⇄ request body conversion. */

export type OptionKind = 'text' | 'textarea' | 'number' | 'boolean' | 'select' | 'secret' | 'headers';

export interface OptionSpec {
  readonly name: string;
  /** Catalogue key under `editor.option.` for its label and help (`editor.option.<key>.label`). */
  readonly key: string;
  readonly kind: OptionKind;
  /** What the probe uses when the option is not set (booleans start at it). */
  readonly fallback?: string | boolean;
  readonly choices?: readonly string[];
  readonly required?: boolean;
  readonly min?: number;
  readonly max?: number;
  /** A secret shown in a non-password field (the request body): masked and kept like `secret`. */
  readonly secret?: boolean;
}

/** True for an option the server masks as `__stored__` (headers are masked row by row). */
export const isSecretSpec = (spec: OptionSpec): boolean => spec.kind === 'secret' || spec.secret === true;

/** Labels and hints live in the catalogue under `editor.type.<type>.`; the placeholder is an example value. */
export interface TypeInfo {
  readonly type: SensorType;
  readonly targetPlaceholder: string;
}

export const TYPE_INFO: readonly TypeInfo[] = [
  { type: 'http', targetPlaceholder: 'https://example.com/health' },
  { type: 'tcp', targetPlaceholder: 'db.internal:5432' },
  { type: 'ping', targetPlaceholder: '192.0.2.10' },
  { type: 'dns', targetPlaceholder: 'example.com' },
  { type: 'docker', targetPlaceholder: 'web-1' },
  { type: 'snmp', targetPlaceholder: 'switch-1.lan' },
  { type: 'push', targetPlaceholder: '' },
];

const TIMEOUT: OptionSpec = {
  name: 'timeout',
  key: 'timeout',
  kind: 'number',
  fallback: '10',
  min: 1,
  // A time-out never exceeds the interval, so the longest interval bounds it.
  max: SENSOR_INTERVAL.max,
};

const TLS_CHECKS: readonly OptionSpec[] = [
  { name: 'insecure_skip_verify', key: 'insecureSkipVerify', kind: 'boolean', fallback: false },
  { name: 'cert_warn_days', key: 'certWarnDays', kind: 'number', min: 0, max: 3650 },
];

export const RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'NS', 'TXT', 'SOA', 'SRV', 'PTR', 'CAA'] as const;

/** The options of each type, in the order the form shows them (decisions.md, "Option names"). */
export const OPTION_SPECS: Readonly<Record<SensorType, readonly OptionSpec[]>> = {
  http: [
    {
      name: 'method',
      key: 'method',
      kind: 'select',
      choices: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      fallback: 'GET',
    },
    { name: 'headers', key: 'headers', kind: 'headers' },
    { name: 'body', key: 'body', kind: 'textarea', secret: true },
    { name: 'basic_auth_user', key: 'basicAuthUser', kind: 'text' },
    { name: 'basic_auth_password', key: 'basicAuthPassword', kind: 'secret' },
    { name: 'expected_status', key: 'expectedStatus', kind: 'text', fallback: '200-399' },
    { name: 'keyword', key: 'keyword', kind: 'text' },
    { name: 'invert_keyword', key: 'invertKeyword', kind: 'boolean', fallback: false },
    { name: 'json_path', key: 'jsonPath', kind: 'text' },
    { name: 'json_operator', key: 'jsonOperator', kind: 'select', choices: JSON_OPERATORS, fallback: '==' },
    { name: 'json_expected', key: 'jsonExpected', kind: 'text' },
    { name: 'follow_redirects', key: 'followRedirects', kind: 'boolean', fallback: true },
    ...TLS_CHECKS,
    TIMEOUT,
  ],
  tcp: [{ name: 'tls', key: 'tls', kind: 'boolean', fallback: false }, ...TLS_CHECKS, TIMEOUT],
  ping: [{ name: 'count', key: 'count', kind: 'number', fallback: '1', min: 1, max: 10 }, TIMEOUT],
  dns: [
    { name: 'server', key: 'server', kind: 'text' },
    { name: 'record_type', key: 'recordType', kind: 'select', choices: RECORD_TYPES, fallback: 'A' },
    { name: 'expected', key: 'dnsExpected', kind: 'text' },
    { name: 'transport', key: 'transport', kind: 'select', choices: ['udp', 'tcp'], fallback: 'udp' },
    TIMEOUT,
  ],
  docker: [{ name: 'socket', key: 'socket', kind: 'text', fallback: '/var/run/docker.sock' }, TIMEOUT],
  // The token is not an editable option: the server generates it (see the push panel).
  push: [{ name: 'grace', key: 'grace', kind: 'number', fallback: '0', min: 0, max: 86_400 }],
  snmp: [
    { name: 'community', key: 'community', kind: 'secret', fallback: 'public' },
    { name: 'oid', key: 'oid', kind: 'text', required: true },
    { name: 'port', key: 'port', kind: 'number', fallback: '161', min: 1, max: 65535 },
    { name: 'expected', key: 'snmpExpected', kind: 'text' },
    { name: 'min', key: 'min', kind: 'number' },
    { name: 'max', key: 'max', kind: 'number' },
    TIMEOUT,
  ],
};

export interface HeaderRow {
  readonly key: string;
  readonly value: string;
  /** The server holds this header's value (sent back as the marker while the value is left empty). */
  readonly stored?: boolean;
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
    interval: String(SENSOR_DEFAULTS.interval),
    retries: String(SENSOR_DEFAULTS.retries),
    reminderEvery: String(SENSOR_DEFAULTS.reminder_every),
    group: SENSOR_DEFAULTS.group,
    tags: SENSOR_DEFAULTS.tags.join(', '),
    site: SENSOR_DEFAULTS.site,
    enabled: SENSOR_DEFAULTS.enabled,
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
        headers = Object.entries(value as Record<string, unknown>).map(([key, v]) =>
          v === STORED_SECRET ? { key, value: '', stored: true } : { key, value: String(v) },
        );
      }
    } else if (isSecretSpec(spec) && value === STORED_SECRET) {
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
        options[spec.name] = Object.fromEntries(
          rows.map((row) => [row.key.trim(), row.stored && row.value === '' ? STORED_SECRET : row.value]),
        );
      continue;
    }
    const value = draft.options[spec.name];
    if (spec.kind === 'boolean') {
      if (typeof value === 'boolean' && value !== (spec.fallback === true)) options[spec.name] = value;
    } else if (typeof value === 'string' && value.trim() !== '') {
      options[spec.name] =
        spec.kind === 'number' ? numberOrText(value) : isSecretSpec(spec) ? value : value.trim();
    } else if (isSecretSpec(spec) && draft.stored.includes(spec.name)) {
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

/** An option's label in the active language. */
export function optionLabel(spec: OptionSpec): string {
  return t(`editor.option.${spec.key}.label`);
}

/** An option's help line in the active language: what it does, its default and its bounds. */
export function optionHelp(spec: OptionSpec): string {
  const help = t(`editor.option.${spec.key}.help`, { default: spec.fallback });
  if (spec.min !== undefined && spec.max !== undefined)
    return `${help} ${t('editor.bounds.between', { min: spec.min, max: spec.max })}`;
  if (spec.min !== undefined) return `${help} ${t('editor.bounds.atLeast', { min: spec.min })}`;
  return help;
}
