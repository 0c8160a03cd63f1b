import type { ChannelConfig } from './notifier';

/** The value of a string field, or undefined when unset (missing, null or blank). */
export function stringField(config: ChannelConfig, name: string): string | undefined {
  const value = config[name];
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  return value.trim();
}

export function isUnset(config: ChannelConfig, name: string): boolean {
  const value = config[name];
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

/** A string field: required or optional. Numbers are refused except where `allowNumber` says. */
export function checkString(
  config: ChannelConfig,
  name: string,
  required: boolean,
  allowNumber = false,
): string | null {
  if (isUnset(config, name)) return required ? `config.${name} is required` : null;
  const value = config[name];
  if (typeof value === 'string') return null;
  if (allowNumber && typeof value === 'number' && Number.isFinite(value)) return null;
  return `config.${name} must be a string`;
}

/** An http(s) address. The value itself is never quoted: it may be a secret. */
export function checkHttpUrl(config: ChannelConfig, name: string, required: boolean): string | null {
  const problem = checkString(config, name, required);
  if (problem || isUnset(config, name)) return problem;
  let url: URL;
  try {
    url = new URL(String(config[name]).trim());
  } catch {
    return `config.${name} must be an http or https address`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `config.${name} must be an http or https address`;
  }
  return null;
}

export function checkBoolean(config: ChannelConfig, name: string): string | null {
  const value = config[name];
  if (value === undefined || value === null || typeof value === 'boolean') return null;
  return `config.${name} must be true or false`;
}

export function booleanField(config: ChannelConfig, name: string): boolean {
  return config[name] === true;
}

/** An optional enum field (case-insensitive), empty meaning unset. */
export function checkEnum(config: ChannelConfig, name: string, options: readonly string[]): string | null {
  if (isUnset(config, name)) return null;
  const value = config[name];
  if (
    typeof value === 'string' &&
    options.some((option) => option.toLowerCase() === value.trim().toLowerCase())
  ) {
    return null;
  }
  return `config.${name} must be one of ${options.join(', ')}`;
}

/** Refuses fields the type does not know, so a typo is not silently ignored. */
export function checkKnownFields(config: ChannelConfig, known: readonly string[]): string | null {
  for (const name of Object.keys(config)) {
    if (!known.includes(name)) return `config.${name} is not a field of this channel type`;
  }
  return null;
}

/** The first problem of a list of checks, or null. */
export function firstProblem(...problems: (string | null)[]): string | null {
  return problems.find((problem) => problem !== null) ?? null;
}

/** Joins a base address and a path without doubling or losing the slash. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}
