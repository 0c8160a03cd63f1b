import type { FileHandle } from 'node:fs/promises';
import type { ScannedRow } from './restore-apply';
import { JsonTableScanner } from './json-table-scanner';
import type { TableRange } from './restore-plan';

/**
 * Bytes of the spooled document parsed per batch: a quarter MiB is a few thousand rows, parsed
 * in well under 50 ms, so a restore on the event loop (PostgreSQL) never holds it for long.
 */
export const READ_CHUNK = 256 * 1024;

/**
 * Reads one large table of the spooled document again, a chunk at a time, and hands each chunk's
 * rows to `onRows` (awaited before the next chunk is read).
 */
export async function scanRange(
  file: FileHandle,
  table: string,
  range: TableRange,
  onRows: (rows: ScannedRow[]) => Promise<void>,
  chunkBytes = READ_CHUNK,
): Promise<void> {
  let rows: ScannedRow[] = [];
  const scanner = new JsonTableScanner({
    value: () => undefined,
    tableStart: () => undefined,
    row: (_key, index, row) => void rows.push({ index, row }),
    tableEnd: () => undefined,
  });
  const handOver = async () => {
    if (rows.length === 0) return;
    const batch = rows;
    rows = [];
    await onRows(batch);
  };
  scanner.feed(Buffer.from(`{${JSON.stringify(table)}:`));
  const buffer = Buffer.allocUnsafe(chunkBytes);
  for (let position = range.start; position < range.end;) {
    const { bytesRead } = await file.read(buffer, 0, Math.min(chunkBytes, range.end - position), position);
    if (bytesRead === 0) throw new Error('the spooled document is shorter than when it was checked');
    scanner.feed(buffer.subarray(0, bytesRead));
    position += bytesRead;
    await handOver();
  }
  scanner.feed(Buffer.from('}'));
  scanner.end();
  await handOver();
}
