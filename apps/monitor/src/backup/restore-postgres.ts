import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SqlClient } from '../core/database/sql-client';
import type { ReadSnapshot } from '../core/database/own-connection';
import { backupDocument } from './backup-document';
import { LoopTurns } from './loop-turns';
import { applyRestore, type PlanData, type RestoreOutcome } from './restore-apply';
import { SafetyCopyError } from './restore-errors';
import { scanRange } from './restore-spool';
import { ATOMIC_WRITE_LOCK } from '../core/database/unit-of-work';

/** The PostgreSQL safety document's name: a constant prefix and the time (UTC, to the second). */
export const safetyDocumentName = (nowMs: number): string =>
  `monitor-before-restore-${new Date(nowMs).toISOString().slice(0, 19).replace(/:/g, '-')}Z.json`;

/**
 * Writes a full backup document (history included, every day) of the current state into `dir`,
 * from a snapshot of its own, and answers its file name. The file is created exclusively (a name
 * already taken gets -2, -3 …) and readable by the owner only (it holds the API key); a failed
 * write removes what was written and rethrows.
 */
export async function writeSafetyDocument(
  dir: string,
  now: number,
  apiKey: string | null,
  openSnapshot: () => Promise<ReadSnapshot>,
): Promise<string> {
  const base = safetyDocumentName(now);
  let name = base;
  for (let n = 2; fs.existsSync(path.join(dir, name)); n++) name = base.replace(/\.json$/, `-${n}.json`);
  const target = path.join(dir, name);
  const file = await fs.promises.open(target, 'wx', 0o600);
  let written = false;
  try {
    const snapshot = await openSnapshot();
    try {
      const turns = new LoopTurns();
      let buffered: string[] = [];
      let size = 0;
      for await (const piece of backupDocument(snapshot.tx, {
        scope: 'history',
        days: 'all',
        now,
        apiKey,
        counts: {},
      })) {
        buffered.push(piece);
        size += piece.length;
        if (size >= 256 * 1024) {
          await file.write(buffered.join(''));
          buffered = [];
          size = 0;
        }
        await turns.maybe();
      }
      await file.write(buffered.join(''));
      await file.sync();
      written = true;
    } finally {
      await snapshot.close();
    }
  } finally {
    await file.close();
    if (!written) fs.rmSync(target, { force: true });
  }
  return name;
}

/** What a PostgreSQL restore writes: a checked plan and the spooled document it came from. */
export interface PostgresRestoreJob {
  spool: string;
  plan: PlanData;
  now: number;
  apiKeyRows: { hash: string; sealed: string } | null;
}

/** Where the safety document goes and what it reads. */
export interface SafetyDocumentSource {
  dataDir: string;
  /** The API key in clear (the document carries it), or null. */
  apiKey: string | null;
  openSnapshot: () => Promise<ReadSnapshot>;
  /** Told the file name and the cause when the safety document fails (for the log). */
  refused?: (name: string, cause: string) => void;
}

/**
 * A restore into PostgreSQL: first the safety document of the current state (no document, no
 * restore: SafetyCopyError, nothing changed), then the checked document written in ONE transaction
 * on a pool client of its own, serialised with every `atomically` writer. Everything is awaited
 * statement by statement and the large tables go in quarter-MiB batches, so the event loop keeps
 * serving requests and probes; any error rolls everything back.
 */
export async function restoreIntoPostgres(
  client: SqlClient,
  job: PostgresRestoreJob,
  safety: SafetyDocumentSource,
): Promise<{ safetyCopy: string; outcome: RestoreOutcome }> {
  let safetyCopy: string;
  try {
    safetyCopy = await writeSafetyDocument(safety.dataDir, job.now, safety.apiKey, safety.openSnapshot);
  } catch (error) {
    const name = safetyDocumentName(job.now);
    const cause = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    safety.refused?.(name, cause);
    throw new SafetyCopyError(
      `restore refused: the safety copy ${name} could not be written in the data directory (${cause}); nothing was changed`,
    );
  }
  const file = await fs.promises.open(job.spool, 'r');
  try {
    const outcome = await client.transaction(async (tx) => {
      // The lock every `atomically` writer takes: no "check, then write" interleaves with the restore.
      await tx.get('SELECT pg_advisory_xact_lock(?)', [ATOMIC_WRITE_LOCK]);
      const turns = new LoopTurns();
      return applyRestore(tx, job.plan, {
        now: job.now,
        apiKeyRows: job.apiKeyRows,
        scan: (table, onRows) =>
          scanRange(file, table, job.plan.ranges[table]!, async (rows) => {
            await onRows(rows);
            await turns.maybe();
          }),
      });
    });
    return { safetyCopy, outcome };
  } finally {
    await file.close();
  }
}
