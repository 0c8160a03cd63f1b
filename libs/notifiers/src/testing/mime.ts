/** Just enough MIME reading for the e-mail tests: headers, and the decoded text of each part. */
export interface MimePart {
  headers: Record<string, string>;
  body: string;
}

export function parseMessage(raw: string): { headers: Record<string, string>; parts: MimePart[] } {
  const top = splitPart(raw);
  const boundary = /boundary="?([^";]+)"?/i.exec(top.headers['content-type'] ?? '')?.[1];
  if (!boundary) return { headers: top.headers, parts: [decodePart(top)] };
  const chunks = top.body.split(`--${boundary}`).slice(1);
  const parts = chunks
    .filter((chunk) => !chunk.startsWith('--'))
    .map((chunk) => decodePart(splitPart(chunk.replace(/^\r?\n/, ''))));
  return { headers: top.headers, parts };
}

function splitPart(text: string): { headers: Record<string, string>; body: string } {
  const match = /\r?\n\r?\n/.exec(text);
  const head = match ? text.slice(0, match.index) : text;
  const body = match ? text.slice(match.index + match[0].length) : '';
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { headers, body };
}

function decodePart(part: { headers: Record<string, string>; body: string }): MimePart {
  const encoding = (part.headers['content-transfer-encoding'] ?? '').toLowerCase();
  let body = part.body;
  if (encoding === 'quoted-printable') {
    const bytes = body
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    body = Buffer.from(bytes, 'latin1').toString('utf8');
  } else if (encoding === 'base64') {
    body = Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  }
  return { headers: part.headers, body: body.replace(/\r\n/g, '\n').replace(/\n+$/, '') };
}
