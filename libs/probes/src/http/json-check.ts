import {
  JSONPathEnvironment,
  JSONPathError,
  JSONPathLexerError,
  type JSONPathQuery,
  type JSONValue,
} from 'json-p3';
import { JSON_OPERATORS, type JsonOperator } from '@monitor/contracts';
import { checkString } from '../probe-messages';
import type { Options } from '../options';

/**
 * The http probe's JSON check: options `json_path`, `json_operator` and `json_expected`.
 * Rules (docs/decisions.md, "JSON checks on http sensors"): one match is judged as its value,
 * several as the array of their values; ==, != and contains compare string forms (numbers
 * numerically), the ordering operators need numbers on both sides; no match fails.
 */
export const JSON_OPTION_NAMES = ['json_path', 'json_operator', 'json_expected'] as const;
const ORDERING: readonly JsonOperator[] = ['<', '<=', '>', '>='];
const MAX_VALUE_CHARS = 80;
const MAX_CACHED_PATHS = 256;

/**
 * RFC 9535 JSONPath (json-p3) without match() and search(): their regular expressions run on
 * JavaScript's backtracking engine, where a pattern like (a|a)*b stalls the event loop for seconds.
 */
const environment = new JSONPathEnvironment();
environment.functionRegister.delete('match');
environment.functionRegister.delete('search');
const compiled = new Map<string, JSONPathQuery>();

/** Compiles a trimmed expression once (probes run it every interval); throws a JSONPathError. */
function compileJsonPath(expression: string): JSONPathQuery {
  let query = compiled.get(expression);
  if (query === undefined) {
    query = environment.compile(expression);
    if (compiled.size >= MAX_CACHED_PATHS) compiled.delete(compiled.keys().next().value as string);
    compiled.set(expression, query);
  }
  return query;
}

export interface JsonCheck {
  expression: string;
  query: JSONPathQuery;
  operator: JsonOperator;
  /** undefined: the path only has to match. */
  expected: string | undefined;
}

/** The strict check on save: null when the options make a valid JSON check (or none). */
export function validateJsonCheck(options: Options): string | null {
  for (const name of JSON_OPTION_NAMES) {
    const problem = checkString(options, name, 2000);
    if (problem) return problem;
  }
  const path = options['json_path'];
  const hasPath = typeof path === 'string' && path.trim() !== '';
  if (!hasPath) {
    if (options['json_expected'] !== undefined) return 'options.json_expected needs options.json_path';
    if (options['json_operator'] !== undefined) return 'options.json_operator needs options.json_path';
    return null;
  }
  const expression = path.trim();
  try {
    compileJsonPath(expression);
  } catch (error) {
    if (!(error instanceof JSONPathError)) throw error;
    // json-p3's lexer words a trailing dot as its own "can't backup beyond start".
    const what =
      error instanceof JSONPathLexerError && expression.endsWith('.')
        ? 'a name or * must follow the final .'
        : error.message;
    return `options.json_path is not a valid JSONPath expression: ${what}`;
  }
  const operator = options['json_operator'];
  if (operator !== undefined && !(JSON_OPERATORS as readonly unknown[]).includes(operator)) {
    return `options.json_operator must be one of ${JSON_OPERATORS.join(', ')}`;
  }
  const expected = options['json_expected'];
  if (operator !== undefined && operator !== '==' && expected === undefined) {
    return `options.json_expected is required with options.json_operator ${String(operator)}`;
  }
  if (ORDERING.includes(operator as JsonOperator) && asNumber(expected) === null) {
    return `options.json_expected must be a number for options.json_operator ${String(operator)}`;
  }
  return null;
}

/** The run-time reading: null when no JSON check is configured (or it is invalid, refused on save). */
export function jsonCheckOf(options: Options): JsonCheck | null {
  const path = options['json_path'];
  if (typeof path !== 'string' || path.trim() === '' || validateJsonCheck(options) !== null) return null;
  const operator = (options['json_operator'] as JsonOperator | undefined) ?? '==';
  const expected = typeof options['json_expected'] === 'string' ? options['json_expected'] : undefined;
  const expression = path.trim();
  return { expression, query: compileJsonPath(expression), operator, expected };
}

/** Judges a response body: null when it passes, else the failure message. */
export function runJsonCheck(check: JsonCheck, body: string, cutAtBytes: number | null): string | null {
  let document: unknown;
  try {
    document = JSON.parse(body);
  } catch {
    return cutAtBytes !== null
      ? `JSON ${check.expression}: the body is not valid JSON (only its first ${cutAtBytes} bytes are read)`
      : `JSON ${check.expression}: the body is not valid JSON`;
  }
  let matches: JSONValue[];
  try {
    matches = check.query.query(document as JSONValue).values();
  } catch (error) {
    // A descendant segment (..) stops at 50 levels of nesting.
    if (!(error instanceof JSONPathError)) throw error;
    return `JSON ${check.expression} could not be evaluated: ${error.message}`;
  }
  const expectation =
    check.expected === undefined ? '' : `, expected ${check.operator} ${JSON.stringify(check.expected)}`;
  if (matches.length === 0) return `JSON ${check.expression} matched nothing${expectation}`;
  if (check.expected === undefined) return null;
  const value = matches.length === 1 ? matches[0] : matches;
  const verdict = compare(value, check.operator, check.expected);
  if (verdict === true) return null;
  const text = JSON.stringify(value) ?? 'null';
  const shown = text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS - 1)}…` : text;
  if (verdict === 'not a number') {
    return `JSON ${check.expression} is ${shown}, which is not a number${expectation}`;
  }
  return `JSON ${check.expression} is ${shown}${expectation}`;
}

function compare(value: unknown, operator: JsonOperator, expected: string): boolean | 'not a number' {
  switch (operator) {
    case '==':
      return equals(value, expected);
    case '!=':
      return !equals(value, expected);
    case 'contains':
      return Array.isArray(value)
        ? value.some((element) => equals(element, expected))
        : stringForm(value).includes(expected);
    case '<':
    case '<=':
    case '>':
    case '>=': {
      const left = asNumber(value);
      const right = asNumber(expected);
      if (left === null || right === null) return 'not a number';
      if (operator === '<') return left < right;
      if (operator === '<=') return left <= right;
      if (operator === '>') return left > right;
      return left >= right;
    }
  }
}

function equals(value: unknown, expected: string): boolean {
  if (typeof value === 'number') {
    const number = asNumber(expected);
    if (number !== null) return value === number;
  }
  return stringForm(value) === expected;
}

/** Strings as they are; numbers, booleans, null, objects and arrays as JSON text. */
export function stringForm(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null');
}

/** A JSON number, or a string that is one number ("42", "-1.5e3"); null otherwise. */
function asNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string' || !/^\s*-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(value)) return null;
  const number = Number(value);
  return Number.isFinite(number) ? number : null;
}
