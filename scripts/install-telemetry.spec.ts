import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** @scarf/scarf (under @nestjs/swagger → swagger-ui-dist) reports every install unless opted out. */
describe('install-time telemetry', () => {
  it('package.json opts out of Scarf at the top level, where its install script looks', () => {
    const pkg = JSON.parse(read('package.json')) as { scarfSettings?: { enabled?: unknown } };
    expect(pkg.scarfSettings).toEqual({ enabled: false });
  });

  it('every Dockerfile stage that runs npm install sets SCARF_ANALYTICS=false before it', () => {
    const stages = read('Dockerfile')
      .split(/^FROM /m)
      .slice(1);
    const installing = stages.filter((stage) => /^RUN .*npm (install|ci)\b/m.test(stage));
    expect(installing.length).toBeGreaterThanOrEqual(2);
    for (const stage of installing) {
      const env = stage.search(/^ENV SCARF_ANALYTICS=false$/m);
      expect(env).toBeGreaterThan(0);
      expect(env).toBeLessThan(stage.search(/^RUN .*npm (install|ci)\b/m));
    }
  });

  it('CI exports SCARF_ANALYTICS=false before its npm install', () => {
    const run = read('.ci/run');
    const env = run.search(/^export SCARF_ANALYTICS=false$/m);
    expect(env).toBeGreaterThan(0);
    expect(env).toBeLessThan(run.search(/^\s*(\w+=\S+ )*npm install/m));
  });
});
