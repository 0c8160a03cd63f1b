import * as fs from 'node:fs';
import { JsonTableScanner } from './json-table-scanner';
import type { TableRange } from './restore-plan';

const READ_CHUNK = 1024 * 1024;

/** Reads one large table of the spooled document again, synchronously, row by row. */
export function scanRange(
  fd: number,
  table: string,
  range: TableRange,
  onRow: (index: number, row: unknown) => void,
): void {
  const scanner = new JsonTableScanner({
    value: () => undefined,
    tableStart: () => undefined,
    row: (_key, index, row) => onRow(index, row),
    tableEnd: () => undefined,
  });
  scanner.feed(Buffer.from(`{${JSON.stringify(table)}:`));
  const buffer = Buffer.allocUnsafe(READ_CHUNK);
  for (let position = range.start; position < range.end;) {
    const read = fs.readSync(fd, buffer, 0, Math.min(READ_CHUNK, range.end - position), position);
    if (read === 0) throw new Error('the spooled document is shorter than when it was checked');
    scanner.feed(buffer.subarray(0, read));
    position += read;
  }
  scanner.feed(Buffer.from('}'));
  scanner.end();
}
