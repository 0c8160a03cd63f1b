import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SCRIPT = join(__dirname, 'check-i18n.mjs');

function check(...args: string[]): { status: number | null; lines: string[] } {
  const run = spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8' });
  return { status: run.status, lines: run.stdout.trim().split('\n') };
}

describe('check-i18n', () => {
  let dir: string;
  const write = (path: string, text: string) => {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'check-i18n-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('passes the dashboard as committed', () => {
    const { status, lines } = check();
    expect(lines.filter((line) => !line.startsWith('i18n:'))).toEqual([]);
    expect(status).toBe(0);
  });

  it('passes a component whose texts all come from the catalogues', () => {
    write(
      'i18n/en/page.json',
      JSON.stringify({ title: 'Sensors', count: '{n, plural, one {# sensor} other {# sensors}}' }),
    );
    write(
      'i18n/de/page.json',
      JSON.stringify({ title: 'Sensoren', count: '{n, plural, one {# Sensor} other {# Sensoren}}' }),
    );
    write(
      'app/page.component.ts',
      "@Component({ template: `<h1 [attr.aria-label]=\"'page.title' | transloco\">{{ 'page.title' | transloco }}</h1> <p>{{ at | date: 'yyyy-MM-dd HH:mm' }} · 42</p>` })\nconst c = t('page.count', { n });",
    );
    const { status, lines } = check(join(dir, 'app'), join(dir, 'i18n'));
    expect(lines).toEqual(['i18n: 2 keys in 2 languages, 1 source files, 0 problems']);
    expect(status).toBe(0);
  });

  it('names literal text, missing and unused keys and catalogue mismatches', () => {
    write(
      'i18n/en/page.json',
      JSON.stringify({ title: 'Sensors', hint: 'Hello {name}', spare: 'Unused', broken: 'x' }),
    );
    write('i18n/de/page.json', JSON.stringify({ title: '', hint: 'Hallo {who}', broken: '{oops' }));
    write(
      'app/page.component.html',
      `<h1>Sensors</h1><input placeholder="Type a name" /><button [title]="'Run now'">{{ busy ? 'Saving…' : ('page.title' | transloco) }}</button>`,
    );
    write(
      'app/page.component.ts',
      "t('page.hint'); t('page.broken'); t('page.gone'); t(`page.mode.${mode}`);",
    );
    const { status, lines } = check(join(dir, 'app'), join(dir, 'i18n'));
    expect(status).toBe(1);
    expect(lines).toEqual(
      expect.arrayContaining([
        'app/page.component.html: literal text "Sensors"',
        'app/page.component.html: literal placeholder="Type a name"',
        "app/page.component.html: literal 'Run now' bound to title",
        "app/page.component.html: literal text 'Saving…' in an interpolation",
        'de: page.title is not a non-empty text',
        'de: page.hint has arguments {who}, English has {name}',
        expect.stringMatching(/^de: page\.broken is not a valid ICU message/),
        'de: page.spare is missing',
        'code names page.gone, which is not in the English catalogue',
        'code names keys under page.mode., there are none',
        'en: page.spare is never used',
      ]),
    );
  });
});
