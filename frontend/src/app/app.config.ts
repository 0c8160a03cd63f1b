import { provideHttpClient, withFetch } from '@angular/common/http';
import {
  ApplicationConfig,
  inject,
  provideAppInitializer,
  provideBrowserGlobalErrorListeners,
  provideZonelessChangeDetection,
} from '@angular/core';
import {
  TitleStrategy,
  provideRouter,
  withComponentInputBinding,
  withInMemoryScrolling,
} from '@angular/router';

import { APP_ROUTES } from './app.routes';
import { provideI18n } from './core/i18n/i18n.providers';
import { SessionStore } from './core/session/session.store';
import { PageTitleStrategy } from './core/title/page-title.strategy';

export const APP_CONFIG: ApplicationConfig = {
  providers: [
    provideBrowserGlobalErrorListeners(),
    provideZonelessChangeDetection(),
    provideHttpClient(withFetch()),
    provideRouter(
      APP_ROUTES,
      withComponentInputBinding(),
      withInMemoryScrolling({ scrollPositionRestoration: 'top' }),
    ),
    { provide: TitleStrategy, useClass: PageTitleStrategy },
    ...provideI18n(),
    // Start reading the session at once (the route guards wait for it) and start listening for 401s.
    // Not awaited: a failure is shown by the app frame with "Try again".
    provideAppInitializer(() => {
      inject(SessionStore)
        .ensureLoaded()
        .catch(() => undefined);
    }),
  ],
};
