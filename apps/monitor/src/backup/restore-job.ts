import * as fs from 'node:fs/promises';
import { ConflictError, InvalidInputError } from '@monitor/domain';
import { isBusy, writeInOwnConnection } from '../core/database/own-connection';
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
  statusPages: plan.statusPages,
  accounts: plan.accounts,
  ranges: plan.ranges,
});

/**
 * Writes a checked document through a connection of its own, in one IMMEDIATE transaction: the
 * write lock is taken before anything is read, so the transaction cannot fail halfway for want of
 * it; any error rolls everything back. Runs in the restore worker thread.
 */
export async function runRestoreJob(job: RestoreJob): Promise<RestoreOutcome> {
  const file = await fs.open(job.spool, 'r');
  try {
    return await writeInOwnConnection(job.databaseFile, job.busyTimeoutMs, (tx) =>
      applyRestore(tx, job.plan, {
        now: job.now,
        apiKeyRows: job.apiKeyRows,
        // Large batches: the worker has no event loop to share.
        scan: (table, onRows) => scanRange(file, table, job.plan.ranges[table]!, onRows, 1024 * 1024),
      }),
    );
  } finally {
    await file.close();
  }
}

/** runRestoreJob as a message: never rejects. */
export async function replyTo(job: RestoreJob): Promise<RestoreReply> {
  try {
    return { ok: true, outcome: await runRestoreJob(job) };
  } catch (error) {
    return replyToError(error);
  }
}

/** A failed restore as a message; the kind keeps the HTTP status. */
export function replyToError(error: unknown): RestoreReply & { ok: false } {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof InvalidInputError) return { ok: false, kind: 'invalid', message };
  if (error instanceof ConflictError) return { ok: false, kind: 'conflict', message };
  // Another connection held the write lock past the wait: nothing was written.
  if (isBusy(error))
    return { ok: false, kind: 'conflict', message: 'the database stayed busy; nothing was restored' };
  return { ok: false, kind: 'failed', message };
}
