/** One DNS name: labels of letters, digits and inner hyphens, at most 253 characters. */
const HOST_NAME =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * `allowed_hosts`: the host names, besides IP addresses, `localhost` and the host of `base_url`,
 * from which first-run setup may be done. A YAML list or, from the environment, a comma-separated
 * string; names are compared lower-case without a trailing dot. Answers the names, or the problem.
 */
export function readAllowedHosts(value: unknown): { hosts: string[] } | { problem: string } {
  if (value === null || value === undefined || value === '') return { hosts: [] };
  const items = typeof value === 'string' ? value.split(',') : value;
  if (!Array.isArray(items)) return { problem: 'must be a list of host names like monitor.example.com' };
  const hosts: string[] = [];
  for (const item of items) {
    const name = typeof item === 'string' ? item.trim().toLowerCase().replace(/\.$/, '') : null;
    if (typeof value === 'string' && name === '') continue;
    if (name === null || !HOST_NAME.test(name)) {
      return {
        problem: `must be host names like monitor.example.com, without scheme, port or path (got ${JSON.stringify(item) ?? String(item)})`,
      };
    }
    if (!hosts.includes(name)) hosts.push(name);
  }
  return { hosts };
}
