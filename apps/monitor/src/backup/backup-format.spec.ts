import {
  backupFileName,
  checkHeaderField,
  DAY_MS,
  historyCutoffs,
  safetyCopyName,
  SCHEMA_VERSION,
} from './backup-format';

describe('header', () => {
  it('accepts this build’s versions and refuses another format or newer versions', () => {
    expect(() => checkHeaderField('format', 'monitor-backup')).not.toThrow();
    expect(() => checkHeaderField('format_version', 1)).not.toThrow();
    expect(() => checkHeaderField('schema_version', SCHEMA_VERSION)).not.toThrow();
    expect(() => checkHeaderField('format', 'uptime-kuma')).toThrow(/not a backup of this service/);
    expect(() => checkHeaderField('format_version', 2)).toThrow(/newer than this build reads/);
    expect(() => checkHeaderField('schema_version', SCHEMA_VERSION + 1)).toThrow(
      /newer than this build's database/,
    );
    expect(() => checkHeaderField('schema_version', '1')).toThrow(/positive integer/);
    expect(() => checkHeaderField('days', 14)).toThrow(/days/);
    expect(() => checkHeaderField('colour', 'red')).toThrow(/unknown key "colour"/);
  });

  it('names files from a constant and the time only', () => {
    const at = Date.parse('2026-11-21T13:04:05.678Z');
    expect(backupFileName(at)).toBe('monitor-backup-2026-11-21.json');
    expect(safetyCopyName('monitor.db', at)).toBe('monitor.db.before-restore-20261121T130405678Z');
  });

  it('cuts history at whole hours and days', () => {
    const at = Date.parse('2026-11-21T13:04:05Z');
    expect(historyCutoffs('all', at)).toBeNull();
    expect(historyCutoffs('7', at)).toEqual({
      hourly: Date.parse('2026-11-14T13:00:00Z'),
      daily: Date.parse('2026-11-14T00:00:00Z'),
      incidents: at - 7 * DAY_MS,
    });
  });
});
