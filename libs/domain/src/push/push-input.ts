import { InvalidInputError } from '../errors';

/** Longest `msg` a push may carry. */
export const PUSH_MESSAGE_MAX = 200;

/** What one push reports. */
export interface PushReport {
  success: boolean;
  message: string;
  latencyMs: number | null;
}

const FIELDS = ['status', 'msg', 'latency_ms'] as const;
type Field = (typeof FIELDS)[number];

/**
 * Reads a push from the query string and, on POST, a JSON body; a field in the body wins over the
 * same field in the query. Unknown query parameters are ignored (cache-busters, curl habits);
 * unknown body fields are refused like in every other body. Numbers may arrive as text (a query).
 */
export function readPush(query: unknown, body: unknown = undefined): PushReport {
  const fromQuery = query && typeof query === 'object' ? (query as Record<string, unknown>) : {};
  let fromBody: Record<string, unknown> = {};
  if (body !== undefined && body !== null && body !== '') {
    if (typeof body !== 'object' || Array.isArray(body))
      throw new InvalidInputError('the body must be a JSON object');
    fromBody = body as Record<string, unknown>;
    const unknown = Object.keys(fromBody).find((key) => !(FIELDS as readonly string[]).includes(key));
    if (unknown !== undefined) throw new InvalidInputError(`${unknown} is not a field of a push`);
  }
  const value = (field: Field): unknown => {
    const given = field in fromBody ? fromBody[field] : fromQuery[field];
    // A query parameter given twice arrives as a list: the last one counts, as in most servers.
    return Array.isArray(given) && !(field in fromBody) ? given[given.length - 1] : given;
  };
  return {
    success: readStatus(value('status')),
    message: readMessage(value('msg')),
    latencyMs: readLatency(value('latency_ms')),
  };
}

function readStatus(value: unknown): boolean {
  if (value === undefined || value === '' || value === 'up') return true;
  if (value === 'down') return false;
  throw new InvalidInputError('status must be up or down');
}

function readMessage(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value !== 'string') throw new InvalidInputError('msg must be a string');
  if (value.length > PUSH_MESSAGE_MAX)
    throw new InvalidInputError(`msg must be at most ${PUSH_MESSAGE_MAX} characters`);
  return value;
}

function readLatency(value: unknown): number | null {
  if (value === undefined || value === '') return null;
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isFinite(number) || number < 0)
    throw new InvalidInputError('latency_ms must be a finite number of at least 0');
  return number;
}
