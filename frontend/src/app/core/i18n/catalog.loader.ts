import { Injectable } from '@angular/core';
import type { Translation, TranslocoLoader } from '@jsverse/transloco';

import type { LanguageTag } from './languages';

/** Each catalogue is its own chunk, so a page downloads only the language it shows. */
const CATALOGUES: Readonly<Record<LanguageTag, () => Promise<{ default: Translation }>>> = {
  en: () => import('../../../i18n/en'),
  de: () => import('../../../i18n/de'),
};

@Injectable({ providedIn: 'root' })
export class CatalogLoader implements TranslocoLoader {
  async getTranslation(lang: string): Promise<Translation> {
    const load = CATALOGUES[lang as LanguageTag];
    if (!load) throw new Error(`No catalogue for language ${lang}`);
    return (await load()).default;
  }
}
