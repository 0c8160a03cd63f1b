import { HttpException, HttpStatus, Inject, Injectable } from '@nestjs/common';
import { LoginThrottle } from '@monitor/domain';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Clock } from '../core/clock/clock';
import type { AppLogger } from '../core/logging/logger';
import { APP_LOGGER } from '../core/logging/logging.tokens';

/** What kind of check is throttled: names the log line and the 429's message. */
export interface CheckKind {
  /** The warn line's `msg`, e.g. `sign-in failed`. */
  logMessage: string;
  /** Completes "too many failed …", e.g. `sign-in attempts`. */
  refusal: string;
}

export const SIGN_IN: CheckKind = { logMessage: 'sign-in failed', refusal: 'sign-in attempts' };
export const PASSWORD_CHECK: CheckKind = { logMessage: 'password check failed', refusal: 'password checks' };

/** A failure the throttle counts: `reason` and the username tried go to the log line. */
export interface CountedFailure {
  reason: string;
  username?: string;
}

export interface ThrottledCheck<T> {
  kind: CheckKind;
  /** The account the check is for, when the request names one before it is checked. */
  account?: { id: number; username: string };
  /** The username tried, for the log line of a refusal. */
  username?: string;
  /** Whether a thrown error is a failed check (counted), and why; others pass through uncounted. */
  failure: (error: unknown) => CountedFailure | null;
  /** The check itself; never called when the attempt is refused. */
  run: () => Promise<T>;
}

/**
 * The login throttle's rules (five failures a minute, attempts in flight holding a place, in
 * memory, per process) for every check of a password or a second-factor code: counted per client
 * address across all of them, and per account wherever the account is known before the check. A
 * refused attempt is 429 with `Retry-After`, logs one warn line, and checks nothing (no bcrypt).
 */
@Injectable()
export class SecretCheckThrottle {
  private readonly throttle = new LoginThrottle();

  constructor(
    private readonly clock: Clock,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  async attempt<T>(request: FastifyRequest, reply: FastifyReply, check: ThrottledCheck<T>): Promise<T> {
    const ip = request.ip;
    const keys = [`address ${ip}`, ...(check.account ? [`account ${check.account.id}`] : [])];
    const username = check.account?.username ?? check.username;
    const now = this.clock.now();
    const held = this.begin(keys, now);
    if (typeof held === 'number') {
      this.log(check.kind, ip, username, 'rate limited');
      void reply.header('retry-after', String(held));
      throw new HttpException(
        `too many failed ${check.kind.refusal}: try again in ${held} seconds`,
        HttpStatus.TOO_MANY_REQUESTS,
      );
    }
    let failed = false;
    try {
      return await check.run();
    } catch (error) {
      const failure = check.failure(error);
      if (failure) {
        failed = true;
        this.log(check.kind, ip, failure.username ?? username, failure.reason);
      }
      throw error;
    } finally {
      const end = this.clock.now();
      for (const key of held) this.throttle.settle(key, failed, end);
      this.throttle.sweep(end);
    }
  }

  /** Places for every key, or the seconds to wait (then no place is held). */
  private begin(keys: string[], now: number): string[] | number {
    const wait = Math.max(...keys.map((key) => this.throttle.retryAfterSeconds(key, now)));
    if (wait > 0) return wait;
    const held: string[] = [];
    for (const key of keys) {
      const refused = this.throttle.begin(key, now);
      if (refused > 0) {
        for (const taken of held) this.throttle.settle(taken, false, now);
        return refused;
      }
      held.push(key);
    }
    return held;
  }

  /** One warn line per failure, for fail2ban-style tools (README, "Logs"); never the secret. */
  private log(kind: CheckKind, ip: string, username: string | undefined, reason: string): void {
    this.logger.warn({ ip, username: printableUsername(username), reason }, kind.logMessage);
  }
}

/** The username as tried, safe on one log line: control characters become `?`, at most 128 characters. */
export function printableUsername(username: string | undefined): string {
  if (username === undefined) return '-';
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is replaced
  return username.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?').slice(0, 128);
}
