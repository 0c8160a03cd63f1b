import { signal } from '@angular/core';
import { translate } from '@jsverse/transloco';

import { DEFAULT_LANGUAGE, type LanguageTag } from './languages';

// Notifies on every catalogue load, also of the default language: texts worded before it loaded were keys.
const active = signal<LanguageTag>(DEFAULT_LANGUAGE, { equal: () => false });

/** The language the dashboard shows, as a signal: computed texts and formats follow a change. */
export const activeLanguage = active.asReadonly();

/** Set only by {@link LanguageService} once that language's catalogue has loaded. */
export function markLanguageActive(tag: LanguageTag): void {
  active.set(tag);
}

/**
 * A text of the active language for code outside templates (templates use the `transloco` pipe).
 * Reading it inside `computed` re-evaluates when the language changes.
 */
export function t(key: string, params?: Record<string, unknown>): string {
  active();
  return translate<string>(key, params);
}
