import { crossOriginImageSources } from '../core/http/security-headers';
import { tileOrigins, validateTileUrl } from './tile-url';

describe('tile URLs', () => {
  it.each([
    ['', []],
    ['https://tiles.example.org/{z}/{x}/{y}.png', ['https://tiles.example.org']],
    ['HTTPS://Tiles.Example.org:443/{z}/{x}/{y}.png', ['https://tiles.example.org']],
    ['http://tiles.example.org:8080/{z}/{x}/{y}', ['http://tiles.example.org:8080']],
    [
      'https://{s}.tile.example.org/{z}/{x}/{y}.png',
      ['https://a.tile.example.org', 'https://b.tile.example.org', 'https://c.tile.example.org'],
    ],
    ['https://tile.example.org/{s}/{z}/{x}/{y}.png', ['https://tile.example.org']],
    ['ftp://tiles.example.org/{z}/{x}/{y}.png', []],
    ['https://{z}.example.org/{x}/{y}', []],
  ])('%s has the origins %j', (template, origins) => {
    expect(tileOrigins(template)).toEqual(origins);
  });

  it.each([
    ['https://tiles.example.org/{x}/{y}.png', /missing \{z\}/],
    ['ws://tiles.example.org/{z}/{x}/{y}', /http or https URL, not ws/],
    ['//tiles.example.org/{z}/{x}/{y}', /http or https URL/],
    ['https://{y}.example.org/{z}/{x}', /only \{s\} may appear in the host/],
  ])('%s is refused', (template, message) => {
    expect(() => validateTileUrl(template)).toThrow(message);
  });

  it('a tile origin equal to the origin a request arrived at is left out', () => {
    const origins = ['http://127.0.0.1:8080', 'https://tiles.example.org'];
    expect(crossOriginImageSources(origins, { protocol: 'http', host: '127.0.0.1:8080' })).toEqual([
      'https://tiles.example.org',
    ]);
    expect(crossOriginImageSources(origins, { protocol: 'https', host: 'tiles.example.org:443' })).toEqual([
      'http://127.0.0.1:8080',
    ]);
    expect(crossOriginImageSources(origins, { protocol: 'http', host: 'bad host' })).toEqual(origins);
  });
});
