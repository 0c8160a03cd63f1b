import addressparser from 'nodemailer/lib/addressparser';
import type { Notification } from './notifier';

/** One mailbox: a local part and a domain, neither with spaces, brackets or a second @. */
const MAILBOX = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+$/;

export const DEFAULT_SMTP_PORTS = { none: 25, starttls: 587, tls: 465 } as const;

/**
 * Addresses of a comma-separated list ("Ops <ops@example.com>, oncall@example.com"), each with its
 * display name; `invalid` is the first entry that is not an address, as the user typed it.
 */
export function parseAddressList(text: string): { addresses: string[]; invalid: string | null } {
  const addresses: string[] = [];
  for (const entry of addressparser(text, { flatten: true })) {
    if (!MAILBOX.test(entry.address)) {
      return { addresses, invalid: entry.address || entry.name };
    }
    addresses.push(entry.name ? `"${entry.name.replace(/["\\]/g, '')}" <${entry.address}>` : entry.address);
  }
  return { addresses, invalid: null };
}

/** The port to use: the configured one, or the security's usual one; null when not 1..65535. */
export function smtpPort(text: string | undefined, security: keyof typeof DEFAULT_SMTP_PORTS): number | null {
  if (text === undefined) return DEFAULT_SMTP_PORTS[security];
  if (!/^\d{1,5}$/.test(text)) return null;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : null;
}

/** The plain-text body: the rendered message, then the dashboard link. */
export function emailText(notification: Notification): string {
  const parts = [notification.message.trim() || notification.title.trim(), notification.url.trim()];
  return `${parts.filter((part) => part !== '').join('\n\n')}\n`;
}

/** The HTML alternative of the same text: escaped, line breaks kept, the link clickable. */
export function emailHtml(notification: Notification): string {
  const body = escapeHtml(notification.message.trim() || notification.title.trim()).replace(
    /\r?\n/g,
    '<br>\n',
  );
  const url = notification.url.trim();
  const link = /^https?:\/\//i.test(url)
    ? `\n<p><a href="${escapeHtml(url)}">${escapeHtml(url)}</a></p>`
    : url === ''
      ? ''
      : `\n<p>${escapeHtml(url)}</p>`;
  return [
    '<!DOCTYPE html>',
    '<html>',
    '<head><meta charset="utf-8"><title>' + escapeHtml(notification.title.trim()) + '</title></head>',
    '<body style="font-family: sans-serif">',
    `<p>${body}</p>${link}`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}
