import { Injectable, effect, inject } from '@angular/core';
import { Title } from '@angular/platform-browser';
import { RouterStateSnapshot, TitleStrategy } from '@angular/router';

import { activeLanguage, t } from '../i18n/i18n';

export const PRODUCT_NAME = 'Monitor';

/**
 * Sets the document title to "<route title> · Monitor" on every navigation and when the language
 * changes. Route titles are catalogue keys.
 */
@Injectable({ providedIn: 'root' })
export class PageTitleStrategy extends TitleStrategy {
  private readonly title = inject(Title);
  private key: string | undefined;

  constructor() {
    super();
    effect(() => {
      activeLanguage();
      if (this.key !== undefined) this.show(this.key);
    });
  }

  override updateTitle(snapshot: RouterStateSnapshot): void {
    this.key = this.buildTitle(snapshot);
    this.show(this.key);
  }

  private show(key: string | undefined): void {
    this.title.setTitle(key ? `${t(key)} · ${PRODUCT_NAME}` : PRODUCT_NAME);
  }
}
