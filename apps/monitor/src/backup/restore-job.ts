import * as fs from 'node:fs';
import { ConflictError, InvalidInputError } from '@monitor/domain';
import Database from 'better-sqlite3';
import { applyRestore, type PlanData, type RestoreOutcome } from './restore-apply';
import type { RestorePlan } from './restore-plan';
import { scanRange } from './restore-spool';

/** Everything the worker needs to write a checked document. */
export interface RestoreJob {
  databaseFile: string;
  spool: string;
  plan: PlanData;
  now: number;
  apiKeyRows: { hash: string; sealed: string } | null;
  /** How long the worker's connection waits for the server's own short write transactions. */
  busyTimeoutMs: number;
}

/** The worker's answer; an error keeps its kind so the HTTP status stays what it was. */
export type RestoreReply =
  | { ok: true; outcome: RestoreOutcome }
  | { ok: false; kind: 'invalid' | 'conflict' | 'failed'; message: string };

/** The plain-data part of a plan (its row checks are functions and stay behind). */
export const planData = (plan: RestorePlan): PlanData => ({
  settings: plan.settings,
  apiKey: plan.apiKey,
  sites: plan.sites,
  channels: plan.channels,
  sensors: plan.sensors,
  accounts: plan.accounts,
  ranges: plan.ranges,
});

/**
 * Writes a checked document through a connection of its own, in one IMMEDIATE transaction: the
 * write lock is taken before anything is read, so the transaction cannot fail halfway for want of
 * it; any error rolls everything back. Runs in the restore worker thread.
 */
export function runRestoreJob(job: RestoreJob): RestoreOutcome {
  const db = new Database(job.databaseFile, { fileMustExist: true });
  try {
    db.pragma(`busy_timeout = ${job.busyTimeoutMs}`);
    // Per connection: the cascades of a deleted sensor or channel depend on it.
    db.pragma('foreign_keys = ON');
    db.pragma('synchronous = NORMAL');
    const fd = fs.openSync(job.spool, 'r');
    try {
      const outcome = db
        .transaction(() =>
          applyRestore(db, job.plan, {
            now: job.now,
            apiKeyRows: job.apiKeyRows,
            scan: (table, onRow) => scanRange(fd, table, job.plan.ranges[table]!, onRow),
          }),
        )
        .immediate();
      // Copy the large commit into the database file here, off the event loop, rather than in
      // the server's next small write.
      db.pragma('wal_checkpoint(PASSIVE)');
      return outcome;
    } finally {
      fs.closeSync(fd);
    }
  } finally {
    db.close();
  }
}

/** runRestoreJob as a message: never throws. */
export function replyTo(job: RestoreJob): RestoreReply {
  try {
    return { ok: true, outcome: runRestoreJob(job) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof InvalidInputError) return { ok: false, kind: 'invalid', message };
    if (error instanceof ConflictError) return { ok: false, kind: 'conflict', message };
    // Another connection held the write lock past the wait: nothing was written.
    if ((error as { code?: unknown }).code === 'SQLITE_BUSY')
      return { ok: false, kind: 'conflict', message: 'the database stayed busy; nothing was restored' };
    return { ok: false, kind: 'failed', message };
  }
}
