import { Inject, Injectable, Optional } from '@nestjs/common';
import { APP_LOGGER } from '../logging/logging.tokens';
import type { AppLogger } from '../logging/logger';
import { classifyStorageError, type StorageFailure } from './storage-errors';

export interface StorageProblem {
  /** Epoch milliseconds of the first failed write of this spell. */
  since: number;
  /** Why writes fail, for operators (never row contents). */
  reason: string;
  /** Writes that failed in this spell. */
  failures: number;
  /** The last failure came from the disk (full, I/O, busy), so a test write can tell when it ends. */
  disk: boolean;
  /** The disk is full: the spell ends only once there is room again (see requireRoom). */
  full?: boolean;
}

/**
 * Whether writes to the database currently succeed. Writers report each failure and success;
 * /healthz and the doctor read the state, so a monitor that cannot store anything is not silent.
 * The start and the end of a spell are logged once each, whoever reports them.
 */
@Injectable()
export class StorageHealth {
  private current: StorageProblem | null = null;
  private readonly onRecovery: (() => void)[] = [];
  private readonly onFailure: ((problem: StorageProblem) => void)[] = [];
  private room: () => boolean = () => true;

  constructor(@Optional() @Inject(APP_LOGGER) private readonly logger?: AppLogger) {}

  /** Records a failed write; true when this starts a spell of failures (log once, not per write). */
  failed(reason: string, at = Date.now(), disk = false, full = false): boolean {
    const started = this.current === null;
    const failures = (this.current?.failures ?? 0) + 1;
    this.current = { since: this.current?.since ?? at, reason, failures, disk, ...(full ? { full } : {}) };
    for (const listener of this.onFailure) listener(this.current);
    return started;
  }

  /** Calls `listener` after every failed write (the storage watch frees the log, then polls). */
  whenFailing(listener: (problem: StorageProblem) => void): void {
    this.onFailure.push(listener);
  }

  /**
   * While the disk is full, a write that still fit (in the last kilobytes, or in space a
   * checkpoint gave back) does not end the spell until `room` says there is space again: ending
   * it would retry every backlog at once, fill the disk again and log each spell anew.
   */
  requireRoom(room: () => boolean): void {
    this.room = room;
  }

  /** Records a successful write; true when this ends a spell of failures. */
  recovered(): boolean {
    const ended = this.current !== null;
    this.current = null;
    if (ended) for (const listener of this.onRecovery.splice(0)) listener();
    return ended;
  }

  /** Calls `listener` once, when the current spell ends (a writer with a backlog retries then). */
  whenRecovered(listener: () => void): void {
    if (this.current === null) listener();
    else this.onRecovery.push(listener);
  }

  problem(): StorageProblem | null {
    return this.current;
  }

  /**
   * Records a failed write when its error is about storage (full, busy, I/O) and logs the start
   * of a spell; other errors (a constraint, a bug) say nothing about the disk and are ignored.
   */
  reportFailure(error: unknown, fields: Record<string, unknown> = {}): StorageFailure | null {
    const failure = classifyStorageError(error);
    if (!failure) return null;
    if (this.failed(failure.reason, Date.now(), true, failure.status === 507)) {
      const msg = failure.status === 507 ? 'storage full' : 'database writes failing';
      this.logger?.error({ reason: failure.reason, ...fields }, msg);
    }
    return failure;
  }

  /** Records a write that was committed and logs the end of a spell, with its counts. */
  reportSuccess(fields: Record<string, unknown> = {}, at = Date.now()): void {
    const problem = this.current;
    if (problem?.full && !this.room()) return;
    if (!problem || !this.recovered()) return;
    this.logger?.info(
      {
        since: new Date(problem.since).toISOString(),
        duration_ms: at - problem.since,
        failed_writes: problem.failures,
        reason: problem.reason,
        ...fields,
      },
      'storage recovered',
    );
  }

  /** The problem in one line for /healthz and the doctor, or null while writes succeed. */
  describe(): string | null {
    const problem = this.current;
    if (!problem) return null;
    const count = problem.failures === 1 ? '1 failed write' : `${problem.failures} failed writes`;
    return `database writes failing since ${new Date(problem.since).toISOString()}: ${problem.reason} (${count})`;
  }
}
