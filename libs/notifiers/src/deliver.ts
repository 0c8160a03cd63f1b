import { DeliveryError, type ChannelConfig, type Notification, type Notifier } from './notifier';

export interface DeliveryOptions {
  /** Attempts in all, the first included. */
  attempts: number;
  /** Wait after failed attempt n (1-based) before attempt n + 1. */
  backoffMs: (failedAttempt: number) => number;
  /** Time limit of one attempt. */
  attemptTimeoutMs: number;
  /** Injectable for tests. */
  sleep?: (ms: number) => Promise<void>;
  /** Aborts the whole delivery (shutdown): the running attempt stops and no other starts. */
  signal?: AbortSignal;
}

export type DeliveryOutcome =
  { ok: true; attempts: number } | { ok: false; attempts: number; error: DeliveryError };

/** The decisions' policy: three attempts, 1 s then 2 s apart, 10 s each. */
export const DEFAULT_DELIVERY_OPTIONS: DeliveryOptions = {
  attempts: 3,
  backoffMs: (failedAttempt) => failedAttempt * 1000,
  attemptTimeoutMs: 10_000,
};

const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Sends with retries: 429, 5xx, network errors and time-outs are tried again after a linear
 * backoff; other failures end the delivery at once. Never throws.
 */
export async function deliverWithRetries(
  notifier: Notifier,
  config: ChannelConfig,
  notification: Notification,
  options: Partial<DeliveryOptions> = {},
): Promise<DeliveryOutcome> {
  const {
    attempts,
    backoffMs,
    attemptTimeoutMs,
    sleep = defaultSleep,
    signal,
  } = {
    ...DEFAULT_DELIVERY_OPTIONS,
    ...options,
  };
  let error = new DeliveryError('no attempt was made', { status: null, retryable: false });
  for (let attempt = 1; attempt <= Math.max(1, attempts); attempt++) {
    if (signal?.aborted) return { ok: false, attempts: attempt - 1, error: stopped() };
    const timeout = AbortSignal.timeout(attemptTimeoutMs);
    const attemptSignal = signal ? AbortSignal.any([signal, timeout]) : timeout;
    try {
      await notifier.send(config, notification, attemptSignal);
      return { ok: true, attempts: attempt };
    } catch (caught) {
      error =
        caught instanceof DeliveryError
          ? caught
          : new DeliveryError(`the ${notifier.type} sender failed unexpectedly`, {
              status: null,
              retryable: false,
            });
    }
    if (signal?.aborted) return { ok: false, attempts: attempt, error: stopped() };
    if (!error.retryable || attempt >= attempts) return { ok: false, attempts: attempt, error };
    await sleep(backoffMs(attempt));
  }
  return { ok: false, attempts: Math.max(1, attempts), error };
}

function stopped(): DeliveryError {
  return new DeliveryError('delivery stopped before it finished', { status: null, retryable: false });
}
