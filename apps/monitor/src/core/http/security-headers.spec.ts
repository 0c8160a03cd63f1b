import { contentSecurityPolicy } from './security-headers';

describe('contentSecurityPolicy', () => {
  it('names no third party by default and forbids inline scripts, framing and plugins', () => {
    const csp = contentSecurityPolicy();
    expect(csp).not.toMatch(/https?:/);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
  });

  it('adds extra image origins to img-src only', () => {
    const csp = contentSecurityPolicy(['https://tiles.example.org']);
    const directives = csp.split('; ');
    expect(directives.find((d) => d.startsWith('img-src'))).toBe(
      "img-src 'self' data: blob: https://tiles.example.org",
    );
    expect(directives.filter((d) => d.includes('tiles.example.org'))).toHaveLength(1);
  });
});
