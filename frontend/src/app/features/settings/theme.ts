import { DOCUMENT, Injectable, effect, inject } from '@angular/core';
import type { Theme } from '@monitor/contracts';

import { SessionStore } from '../../core/session/session.store';

type Tokens = Readonly<Record<string, string>>;

/** The design tokens of styles.css for each scheme (kept in step with `:root` there). */
const LIGHT: Tokens = {
  '--bg': '#f5f6f8',
  '--surface': '#ffffff',
  '--text': '#1c2128',
  '--text-muted': '#57606a',
  '--border': '#d9dee4',
  '--border-strong': '#aab3bd',
  '--hover': '#eef1f4',
  '--accent': '#0b62c2',
  '--accent-text': '#0a58ad',
  '--on-accent': '#ffffff',
  '--brand-ink': '#ffffff',
  '--focus': '#0b62c2',
  '--success': '#1a7f37',
  '--on-success': '#ffffff',
  '--danger': '#c0362c',
  '--on-danger': '#ffffff',
  '--danger-bg': '#fdf0ef',
  '--danger-border': '#eeb4ae',
  '--shadow': '0 1px 2px rgb(16 24 40 / 0.06), 0 1px 3px rgb(16 24 40 / 0.08)',
};

const DARK: Tokens = {
  '--bg': '#0f1317',
  '--surface': '#171c22',
  '--text': '#e4e8ec',
  '--text-muted': '#9ba6b2',
  '--border': '#2c333c',
  '--border-strong': '#4a5460',
  '--hover': '#212831',
  '--accent': '#5ba4f7',
  '--accent-text': '#7db6f8',
  '--on-accent': '#0b1520',
  '--brand-ink': '#0f1317',
  '--focus': '#7db6f8',
  '--success': '#3fb950',
  '--on-success': '#07130a',
  '--danger': '#f27469',
  '--on-danger': '#1e0a08',
  '--danger-bg': '#2a1618',
  '--danger-border': '#6d2e2b',
  '--shadow': '0 1px 2px rgb(0 0 0 / 0.4)',
};

/**
 * Applies a theme to the page: `data-theme` on `<html>` (light, dark or system), and for light or
 * dark the scheme's tokens set through the CSSOM (allowed by the CSP, unlike a style attribute), so
 * the choice wins over the system's `prefers-color-scheme`. `system` clears them again.
 */
export function applyTheme(document: Document, theme: Theme): void {
  const root = document.documentElement;
  root.dataset['theme'] = theme;
  const tokens = theme === 'dark' ? DARK : theme === 'light' ? LIGHT : undefined;
  for (const name of Object.keys(LIGHT)) {
    if (tokens) root.style.setProperty(name, tokens[name]);
    else root.style.removeProperty(name);
  }
  root.style.colorScheme = tokens ? theme : '';
}

/** Keeps the page's theme in step with the signed-in account's `ui.theme`. */
@Injectable({ providedIn: 'root' })
export class ThemeApplier {
  private readonly document = inject(DOCUMENT);

  constructor() {
    const session = inject(SessionStore);
    effect(() => applyTheme(this.document, session.info()?.ui?.theme ?? 'system'));
  }

  /** Applies a theme at once (before the session is read again). */
  apply(theme: Theme): void {
    applyTheme(this.document, theme);
  }
}
