import { Readable } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import type { BackupDays, BackupScope, BackupTable } from '@monitor/contracts';
import { Clock } from '../core/clock/clock';
import { BackupConnections } from '../core/database/backup-connections';
import { APP_LOGGER } from '../core/logging/logging.tokens';
import type { AppLogger } from '../core/logging/logger';
import { InstallationSecretsService } from '../settings/installation-secrets.service';
import { backupDocument } from './backup-document';
import { backupFileName } from './backup-format';
import { LoopTurns } from './loop-turns';

/** Pieces are gathered to about this many bytes before they go out. */
const CHUNK_BYTES = 64 * 1024;

/**
 * Writes the backup document as a stream. It reads through a connection of its own inside one
 * read transaction, so the document is one consistent snapshot while the server goes on writing;
 * rollups are read and written a sensor at a time, so memory stays flat whatever the history.
 */
@Injectable()
export class BackupService {
  constructor(
    private readonly connections: BackupConnections,
    private readonly secrets: InstallationSecretsService,
    private readonly clock: Clock,
    @Inject(APP_LOGGER) private readonly logger: AppLogger,
  ) {}

  async open(scope: BackupScope, days: BackupDays): Promise<{ fileName: string; stream: Readable }> {
    const now = this.clock.now();
    const apiKey = await this.secrets.apiKey();
    const snapshot = await this.connections.openSnapshot();
    const counts: Partial<Record<BackupTable, number>> = {};
    const pieces = backupDocument(snapshot.tx, { scope, days, now, apiKey, counts });
    const logger = this.logger;
    async function* chunks(): AsyncGenerator<Buffer> {
      let bytes = 0;
      let complete = false;
      try {
        let buffered: string[] = [];
        let size = 0;
        // A fast client drains every chunk at once, so without turns the whole document would be
        // written in one go, holding every other request and probe for seconds.
        const turns = new LoopTurns();
        for await (const piece of pieces) {
          buffered.push(piece);
          size += piece.length;
          if (size >= CHUNK_BYTES) {
            const chunk = Buffer.from(buffered.join(''));
            bytes += chunk.length;
            buffered = [];
            size = 0;
            yield chunk;
          }
          await turns.maybe();
        }
        const last = Buffer.from(buffered.join(''));
        bytes += last.length;
        yield last;
        complete = true;
      } finally {
        await snapshot.close();
        // Row counts only: nothing of the contents.
        if (complete)
          logger.info({ scope, days: scope === 'history' ? days : undefined, counts, bytes }, 'backup');
        else logger.warn({ scope, counts, bytes }, 'backup stopped before the end');
      }
    }
    const stream = Readable.from(chunks(), { objectMode: false });
    // A client gone before the first chunk never starts the generator, so its finally would not
    // end the snapshot (on PostgreSQL a pool client held open).
    stream.once('close', () => void snapshot.close().catch(() => undefined));
    return { fileName: backupFileName(now), stream };
  }
}
