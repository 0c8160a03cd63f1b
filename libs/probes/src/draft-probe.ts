import { BLOCKED_ADDRESS_MESSAGE, blockedHostProblem } from './address-guard';
import type { Probe, ProbeOutcome } from './probe';
import { CANCELLED_MESSAGE } from './probe-messages';

/**
 * The rules of a draft probe (`POST /api/sensors/validate` with `probe: true`) run by a caller
 * below administrator: the draft must not shape the request or judge what the peer sent, must
 * not reach a link-local or cloud metadata address, and the answer carries nothing the peer sent.
 */

/** Why the draft may not run at all: `forbidden` (a 403) or `invalid` (a 400); null when it may. */
export async function restrictedDraftRefusal(
  probe: Probe,
  target: string,
  options: Readonly<Record<string, unknown>>,
): Promise<{ kind: 'forbidden' | 'invalid'; message: string } | null> {
  const forbidden = probe.restrictedDraftProblem(options);
  if (forbidden) return { kind: 'forbidden', message: forbidden };
  for (const host of probe.peerHosts(target, options)) {
    const problem = await blockedHostProblem(host);
    if (problem) return { kind: 'invalid', message: `${problem}; only administrators may probe it` };
  }
  return null;
}

/** Fixed wording of the probes that says nothing the peer sent. */
const FIXED_FAILURES = new Set([
  'connection refused',
  'connection reset by peer',
  'host unreachable',
  'network unreachable',
  'address not available',
  'connection closed unexpectedly',
  'invalid HTTP response',
  'TLS handshake failed',
  'redirect loop',
  BLOCKED_ADDRESS_MESSAGE,
  CANCELLED_MESSAGE,
]);
const FIXED_PATTERNS = [/^timed out after [\d.]+ s$/, /^cannot resolve host \S+( within [\d.]+ s)?$/];

/**
 * The outcome as a caller below administrator sees it: success, status code, latency and a
 * generic message. Records, values, container names and states, certificate details and check
 * findings are all replaced; only fixed wording and the caller's own host name pass.
 */
export function withoutPeerText(outcome: ProbeOutcome): ProbeOutcome {
  const status = outcome.statusCode ?? null;
  let message: string;
  if (status !== null)
    message =
      outcome.success || outcome.message === `HTTP ${status}`
        ? `HTTP ${status}`
        : `HTTP ${status}, check failed`;
  else if (outcome.success) message = 'check passed';
  else if (FIXED_FAILURES.has(outcome.message) || FIXED_PATTERNS.some((p) => p.test(outcome.message)))
    message = outcome.message;
  else message = 'check failed';
  return { success: outcome.success, message, latencyMs: outcome.latencyMs, statusCode: status };
}
