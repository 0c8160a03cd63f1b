// A crowd of signed-in viewers guessing the current password (issue 25), run as its own process so
// the load does not share the benchmark's event loop, where the probe target notes arrival times:
// node password-flood.mjs '<json>' with {url, clients, seconds, cookies}. Each client sends
// PUT /api/password with a wrong current password, one request after the other, as the account
// cookies[client % cookies.length] and from a new X-Forwarded-For address every time (the server
// runs with trust_proxy, so each request seems to come from another machine). Prints {requests,
// requests_per_s, by_status}.
import { Agent } from 'undici';

const { url, clients, seconds, cookies } = JSON.parse(process.argv[2]);
const dispatcher = new Agent({ connections: clients });
const byStatus = {};
let requests = 0;
let sequence = 0;
const address = () => {
  const n = ++sequence;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
};
const deadline = performance.now() + seconds * 1000;

async function client(index) {
  while (performance.now() < deadline) {
    let status;
    try {
      const res = await fetch(`${url}/api/password`, {
        method: 'PUT',
        dispatcher,
        headers: {
          'content-type': 'application/json',
          cookie: cookies[index % cookies.length],
          'x-forwarded-for': address(),
        },
        body: JSON.stringify({ current_password: 'a wrong guess 0000', new_password: 'never stored 1234' }),
      });
      await res.arrayBuffer();
      status = res.status;
    } catch {
      status = 'error';
    }
    requests++;
    byStatus[status] = (byStatus[status] ?? 0) + 1;
  }
}

await Promise.all(Array.from({ length: clients }, (_, i) => client(i)));
await dispatcher.close();
process.stdout.write(
  JSON.stringify({
    requests,
    requests_per_s: Math.round((requests / seconds) * 10) / 10,
    by_status: byStatus,
  }),
);
