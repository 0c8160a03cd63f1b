import { STATUS_PAGE_LANGUAGES, type StatusPageLanguage } from '@monitor/contracts';

const isLanguage = (tag: string): tag is StatusPageLanguage =>
  (STATUS_PAGE_LANGUAGES as readonly string[]).includes(tag);

/**
 * The language a page is rendered in: its own, or else the visitor's most preferred one we have
 * (Accept-Language with q-values; `de-AT` counts as `de`), else English.
 */
export function pageLanguage(pageLanguage: string, acceptLanguage: string | undefined): StatusPageLanguage {
  if (isLanguage(pageLanguage)) return pageLanguage;
  let best: { language: StatusPageLanguage; q: number } | null = null;
  for (const part of (acceptLanguage ?? '').split(',')) {
    const [range, ...params] = part.trim().split(';');
    const primary = range!.trim().toLowerCase().split('-')[0]!;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!Number.isFinite(q) || q <= 0) continue;
    const language = primary === '*' ? 'en' : primary;
    if (isLanguage(language) && (best === null || q > best.q)) best = { language, q };
  }
  return best?.language ?? 'en';
}
