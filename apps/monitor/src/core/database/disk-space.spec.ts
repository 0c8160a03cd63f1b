import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { freeBytes, noSpaceText } from './disk-space';

const coded = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('noSpaceText', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'monitor-space-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'monitor.db');

  it('names the database and the free bytes when the disk is full', () => {
    for (const code of ['SQLITE_FULL', 'ENOSPC', 'EDQUOT'])
      expect(noSpaceText(file, dir, coded(code))).toMatch(
        new RegExp(
          `^no space left for database ${file}: \\d+ bytes free on its file system; free some space`,
        ),
      );
  });

  it('says nothing of errors that are not about space while there is room', () => {
    expect(noSpaceText(file, dir, coded('EACCES'))).toBeNull();
    expect(noSpaceText(file, dir, coded('SQLITE_CORRUPT'))).toBeNull();
    // An I/O error counts as a full disk only with less than a log's worth free (a temp dir has more).
    expect(noSpaceText(file, dir, coded('SQLITE_IOERR_SHMSIZE'))).toBeNull();
  });

  it('measures a data directory not yet created on its nearest existing parent', () => {
    // (Not compared with the parent's figure: other processes write to the same file system.)
    expect(fs.existsSync(path.join(dir, 'not'))).toBe(false);
    expect(freeBytes(path.join(dir, 'not', 'yet'))).toBeGreaterThan(0);
  });
});
