// Runs bench/support/load.mjs in a child process (so the load does not share the benchmark's event
// loop, where the probe target notes arrival times) and answers what it printed.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const loadScript = fileURLToPath(new URL('./load.mjs', import.meta.url));

/** `options`: {url, connections, seconds, rate?, headers?, paths?}, see load.mjs. */
export function crowd(options) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [loadScript, JSON.stringify(options)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`the load generator exited with ${code}`)),
    );
  });
}
