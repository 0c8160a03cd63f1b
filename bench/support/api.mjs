import { createReadStream, statSync } from 'node:fs';
import { request } from 'node:http';

// Signs in to a bench server as the bootstrap admin and returns API-key headers.
export async function apiKeyFor(url, password) {
  const login = await fetch(`${url}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password }),
  });
  const cookie = login.headers.getSetCookie()[0].split(';')[0];
  const key = await (await fetch(`${url}/api/api-key`, { method: 'POST', headers: { cookie } })).json();
  return { 'x-api-key': key.api_key, 'content-type': 'application/json' };
}

/** Creates sensors through the API, `concurrency` requests at a time; returns their ids. */
export async function createSensors(url, headers, bodies, concurrency = 8) {
  const ids = new Array(bodies.length);
  let next = 0;
  const worker = async () => {
    while (next < bodies.length) {
      const index = next++;
      const res = await fetch(`${url}/api/sensors`, {
        method: 'POST',
        headers,
        body: JSON.stringify(bodies[index]),
      });
      if (res.status !== 201) throw new Error(`create answered ${res.status}: ${await res.text()}`);
      ids[index] = (await res.json()).id;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return ids;
}

/** Streams a document file to POST /api/restore; answers the parsed response. */
export function restoreFile(url, headers, file) {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/api/restore`,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'content-length': statSync(file).size },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const body = JSON.parse(Buffer.concat(chunks).toString());
          if (res.statusCode !== 200) reject(new Error(`restore answered ${res.statusCode}: ${body.error}`));
          else resolve(body);
        });
      },
    );
    req.on('error', reject);
    createReadStream(file).pipe(req);
  });
}
