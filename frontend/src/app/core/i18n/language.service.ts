import { DOCUMENT, Injectable, effect, inject } from '@angular/core';
import { TranslocoService } from '@jsverse/transloco';
import { firstValueFrom } from 'rxjs';

import { SessionStore } from '../session/session.store';
import { markLanguageActive } from './i18n';
import { browserLanguage, shippedLanguage, type LanguageTag } from './languages';

/**
 * Chooses the dashboard's language: the signed-in account's preference, else the browser's, else
 * English. A language becomes active only after its catalogue loaded, so no page shows keys.
 */
@Injectable({ providedIn: 'root' })
export class LanguageService {
  private readonly transloco = inject(TranslocoService);
  private readonly document = inject(DOCUMENT);
  private readonly session = inject(SessionStore);
  private wanted: LanguageTag | undefined;

  constructor() {
    effect(() => void this.use(this.preferred()));
  }

  /** The language the session asks for right now. */
  preferred(): LanguageTag {
    const ui = this.session.authenticated() ? this.session.info()?.ui : undefined;
    return (
      shippedLanguage(ui?.language) ?? browserLanguage(this.document.defaultView?.navigator.languages ?? [])
    );
  }

  /** Starts loading a language's catalogue without showing it. */
  preload(tag: LanguageTag): void {
    this.transloco.load(tag).subscribe({ error: () => undefined });
  }

  /** Loads a language's catalogue, then shows it; when calls cross, the latest wins. */
  async use(tag: LanguageTag): Promise<void> {
    this.wanted = tag;
    await firstValueFrom(this.transloco.load(tag));
    if (this.wanted !== tag) return;
    this.transloco.setActiveLang(tag);
    this.document.documentElement.lang = tag;
    markLanguageActive(tag);
  }
}
