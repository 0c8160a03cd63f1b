import { EnvironmentProviders, inject, isDevMode, provideAppInitializer } from '@angular/core';
import { provideTransloco, provideTranslocoTranspiler } from '@jsverse/transloco';

import { SessionStore } from '../session/session.store';
import { CatalogLoader } from './catalog.loader';
import { IcuTranspiler } from './icu.transpiler';
import { LanguageService } from './language.service';
import { DEFAULT_LANGUAGE, LANGUAGES } from './languages';

/** How long the first page waits for the session to learn the account's language. */
const SESSION_WAIT_MS = 2_000;

/**
 * Every visible text comes from the catalogues in `src/i18n` through Transloco, with ICU
 * MessageFormat (see {@link IcuTranspiler}) for plurals and placeholders. The first page renders once its language loaded.
 */
export function provideI18n(): EnvironmentProviders[] {
  return [
    ...provideTransloco({
      config: {
        availableLangs: LANGUAGES.map((language) => language.tag),
        defaultLang: DEFAULT_LANGUAGE,
        fallbackLang: DEFAULT_LANGUAGE,
        missingHandler: { useFallbackTranslation: true, logMissingKey: isDevMode() },
        reRenderOnLangChange: true,
        prodMode: !isDevMode(),
      },
      loader: CatalogLoader,
    }),
    provideTranslocoTranspiler(IcuTranspiler),
    provideAppInitializer(async () => {
      const language = inject(LanguageService);
      const session = inject(SessionStore).ensureLoaded();
      // The browser's language is the likely answer: its catalogue loads while the session is read.
      language.preload(language.preferred());
      await Promise.race([
        session.catch(() => undefined),
        new Promise((wait) => setTimeout(wait, SESSION_WAIT_MS)),
      ]);
      await language.use(language.preferred()).catch((error: unknown) => console.error(error));
    }),
  ];
}
