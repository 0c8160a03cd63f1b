import type { Notification } from './notifier';

/** Cuts `text` to at most `limit` characters (code points), marking the cut with an ellipsis. */
export function truncate(text: string, limit: number): string {
  const chars = Array.from(text);
  if (chars.length <= limit) return text;
  return `${chars.slice(0, Math.max(0, limit - 1)).join('')}…`;
}

/** Title, message and dashboard link as plain text, one block per line, for chat services. */
export function plainText(notification: Notification, limit: number): string {
  const parts = [notification.title, notification.message, notification.url]
    .map((part) => part.trim())
    .filter((part) => part !== '');
  return truncate(parts.join('\n'), limit);
}

/** A header value: one line, and RFC 2047 encoded when it is not plain ASCII. */
export function headerText(text: string): string {
  const line = text.replace(/[\r\n]+/g, ' ').trim();
  if (/^[\x20-\x7e]*$/.test(line)) return line;
  return `=?UTF-8?B?${Buffer.from(line, 'utf8').toString('base64')}?=`;
}
