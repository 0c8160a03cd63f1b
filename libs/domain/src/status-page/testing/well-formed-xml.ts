/*
 * A strict well-formedness check of an XML document (elements, attributes, entities, comments,
 * CDATA, one root), for the tests of SVG badges: the project has no XML parser, and parse5 is HTML.
 * Throws on the first fault; answers the root element's name.
 */
const NAME = /^[A-Za-z_:][-A-Za-z0-9_:.]*/;
const ENTITY = /^&(amp|lt|gt|quot|apos|#[0-9]+|#x[0-9A-Fa-f]+);/;

function checkText(text: string, where: number): void {
  for (let i = text.indexOf('&'); i !== -1; i = text.indexOf('&', i + 1)) {
    if (!ENTITY.test(text.slice(i))) throw new Error(`bad entity at ${where + i}`);
  }
  if (text.includes('<')) throw new Error(`'<' in text at ${where}`);
}

export function assertWellFormedXml(xml: string): string {
  let at = 0;
  const stack: string[] = [];
  let root: string | null = null;
  if (xml.startsWith('<?xml')) at = xml.indexOf('?>') + 2;
  while (at < xml.length) {
    const lt = xml.indexOf('<', at);
    const text = xml.slice(at, lt === -1 ? xml.length : lt);
    if (stack.length === 0 && text.trim() !== '') throw new Error(`text outside the root at ${at}`);
    checkText(text, at);
    if (lt === -1) break;
    at = lt;
    if (xml.startsWith('<!--', at)) {
      const end = xml.indexOf('-->', at + 4);
      if (end === -1 || xml.slice(at + 4, end).includes('--')) throw new Error(`bad comment at ${at}`);
      at = end + 3;
    } else if (xml.startsWith('<![CDATA[', at)) {
      if (stack.length === 0) throw new Error(`CDATA outside the root at ${at}`);
      const end = xml.indexOf(']]>', at);
      if (end === -1) throw new Error(`unclosed CDATA at ${at}`);
      at = end + 3;
    } else if (xml.startsWith('</', at)) {
      const name = NAME.exec(xml.slice(at + 2))?.[0];
      const close = at + 2 + (name?.length ?? 0);
      if (!name || !/^\s*>/.test(xml.slice(close))) throw new Error(`bad end tag at ${at}`);
      if (stack.pop() !== name) throw new Error(`</${name}> does not close the open element at ${at}`);
      at = xml.indexOf('>', close) + 1;
    } else {
      const name = NAME.exec(xml.slice(at + 1))?.[0];
      if (!name) throw new Error(`bad tag at ${at}`);
      if (stack.length === 0 && root !== null) throw new Error(`second root element at ${at}`);
      root ??= name;
      at += 1 + name.length;
      const seen = new Set<string>();
      for (;;) {
        const space = /^\s*/.exec(xml.slice(at))![0].length;
        at += space;
        if (xml.startsWith('/>', at)) {
          at += 2;
          break;
        }
        if (xml.startsWith('>', at)) {
          stack.push(name);
          at += 1;
          break;
        }
        const attribute = /^([A-Za-z_:][-A-Za-z0-9_:.]*)\s*=\s*("[^"<]*"|'[^'<]*')/.exec(xml.slice(at));
        if (!attribute || space === 0) throw new Error(`bad attribute in <${name}> at ${at}`);
        if (seen.has(attribute[1]!)) throw new Error(`duplicate attribute ${attribute[1]} at ${at}`);
        seen.add(attribute[1]!);
        checkText(attribute[2]!.slice(1, -1), at);
        at += attribute[0].length;
      }
    }
  }
  if (root === null) throw new Error('no root element');
  if (stack.length > 0) throw new Error(`unclosed <${stack.join('>, <')}>`);
  return root;
}
