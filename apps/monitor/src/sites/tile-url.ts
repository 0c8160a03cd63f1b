import { InvalidInputError } from '@monitor/domain';

const REQUIRED = ['{z}', '{x}', '{y}'] as const;
const SUBDOMAINS = ['a', 'b', 'c'] as const;

/** The URL with its placeholders filled in: `{s}` by `subdomain`, the tile numbers by `tile`. */
function fill(template: string, subdomain: string, tile: string): string {
  return template.replaceAll('{s}', subdomain).replace(/\{[zxy]\}/g, tile);
}

function parse(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/**
 * Refuses a tile URL template the map cannot use: it must be an http or https URL containing
 * {z}, {x} and {y}; {s} is optional and only it may vary the origin. '' (no tiles) is accepted.
 */
export function validateTileUrl(template: string): void {
  if (template === '') return;
  const missing = REQUIRED.filter((placeholder) => !template.includes(placeholder));
  if (missing.length > 0)
    throw new InvalidInputError(`tile_url must contain {z}, {x} and {y} (missing ${missing.join(', ')})`);
  const first = parse(fill(template, 'a', '0'));
  if (!first) throw new InvalidInputError('tile_url must be an http or https URL');
  if (first.protocol !== 'http:' && first.protocol !== 'https:')
    throw new InvalidInputError(`tile_url must be an http or https URL, not ${first.protocol.slice(0, -1)}`);
  if (parse(fill(template, 'a', '1'))?.origin !== first.origin)
    throw new InvalidInputError(
      'tile_url: only {s} may appear in the host; {z}, {x} and {y} belong in the path',
    );
}

/**
 * The origins the browser fetches tiles from: one, or with {s} the three for a, b and c.
 * An empty or unusable template has none.
 */
export function tileOrigins(template: string): string[] {
  if (template === '') return [];
  try {
    validateTileUrl(template);
  } catch {
    return [];
  }
  const subdomains = template.includes('{s}') ? SUBDOMAINS : SUBDOMAINS.slice(0, 1);
  const origins = subdomains.map((s) => (parse(fill(template, s, '0')) as URL).origin);
  return [...new Set(origins)];
}
