// Regenerates docs/openapi.json from the built server (npm run build first). A CLI test fails when
// the committed document differs from what the server publishes.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dataDir = mkdtempSync(join(tmpdir(), 'monitor-openapi-'));
const child = spawn(
  process.execPath,
  ['dist/apps/monitor/main.js', 'serve', '--listen', '127.0.0.1:0', '--data-dir', dataDir],
  {
    env: { ...process.env, PUID: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
let output = '';
const url = await new Promise((resolve, reject) => {
  child.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
  child.stdout.on('data', (chunk) => {
    output += chunk;
    const line = output.split('\n').find((l) => l.includes('"msg":"listening"'));
    if (line) resolve(JSON.parse(line).url);
  });
});
const document = await (await fetch(`${url}/api/openapi.json`)).json();
writeFileSync('docs/openapi.json', `${JSON.stringify(document, null, 2)}\n`);
child.kill('SIGTERM');
await new Promise((resolve) => child.on('close', resolve));
rmSync(dataDir, { recursive: true, force: true });
console.log(`wrote docs/openapi.json (${Object.keys(document.paths).length} paths)`);
