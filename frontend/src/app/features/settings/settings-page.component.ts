import { ChangeDetectionStrategy, Component, computed, inject, linkedSignal, signal } from '@angular/core';
import { RouterLink } from '@angular/router';
import { TranslocoPipe } from '@jsverse/transloco';
import type { MaintenanceWindow, OnOff, Theme, UiSettings } from '@monitor/contracts';

import { ApiCallError } from '../../core/api/api-call-error';
import { loadable } from '../../core/api/loadable';
import { activeLanguage, t } from '../../core/i18n/i18n';
import { around } from '../../core/i18n/emphasis';
import { LANGUAGES, shippedLanguage, type LanguageTag } from '../../core/i18n/languages';
import { hasRole } from '../../core/session/roles';
import { SessionStore } from '../../core/session/session.store';
import { ErrorAlertComponent } from '../../shared/ui/error-alert.component';
import { LoadingIndicatorComponent } from '../../shared/ui/loading-indicator.component';
import { CredentialChange } from './credential-change';
import { MetricsTokenPanelComponent } from './metrics-token-panel.component';
import { SettingsApi } from './settings.api';
import { ThemeApplier } from './theme';
import { utcInputToIso, utcText } from './utc-time';

/** The theme choices; `label` is a catalogue key, translated where shown. */
const THEMES: readonly { readonly value: Theme; readonly label: string }[] = [
  { value: 'light', label: 'settings.appearance.themes.light' },
  { value: 'dark', label: 'settings.appearance.themes.dark' },
  { value: 'system', label: 'settings.appearance.themes.system' },
];

type UiChange = Partial<{ theme: Theme; borders: OnOff; live: OnOff; language: LanguageTag }>;

/**
 * `/settings`: the signed-in account's appearance (theme, map borders, live updates), the API key
 * (administrators), the Prometheus metrics token, maintenance windows, and links to the other places where settings live.
 */
@Component({
  selector: 'app-settings-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    RouterLink,
    ErrorAlertComponent,
    LoadingIndicatorComponent,
    MetricsTokenPanelComponent,
    TranslocoPipe,
  ],
  templateUrl: './settings-page.component.html',
  styles: `
    :host {
      display: grid;
      gap: 1.25rem;
    }
    h2 {
      margin: 0;
      font-size: 1.1rem;
    }
    h3 {
      margin: 1.25rem 0 0;
      font-size: 1rem;
    }
    .lead {
      margin: 0.25rem 0 1rem;
      color: var(--text-muted);
    }
    fieldset,
    .language {
      border: 0;
      padding: 0;
      margin: 0 0 1rem;
    }
    .key-line {
      display: flex;
      flex-wrap: wrap;
      gap: 0.5rem;
      align-items: center;
    }
    .key {
      overflow-wrap: anywhere;
    }
    .windows,
    .links {
      margin: 0;
      padding: 0;
      list-style: none;
    }
    .window {
      padding: 0.6rem 0;
      border-block-end: 1px solid var(--border);
    }
    .window p {
      margin: 0 0 0.25rem;
    }
    .window-when,
    .window-sensors {
      color: var(--text-muted);
    }
    .badge {
      display: inline-block;
      margin-inline-start: 0.5rem;
      padding: 0.05rem 0.55rem;
      border: 1px solid var(--border-strong);
      border-radius: 999px;
      font-size: 0.8rem;
    }
    .links li {
      padding: 0.25rem 0;
    }
    .links a {
      color: var(--accent-text);
    }
  `,
})
export class SettingsPageComponent {
  private readonly api = inject(SettingsApi);
  private readonly session = inject(SessionStore);
  private readonly themeApplier = inject(ThemeApplier);

  protected readonly themes = THEMES;
  protected readonly apiKeyHeader = 'X-API-Key';
  protected readonly languages = LANGUAGES;
  protected readonly isAdmin = computed(() => this.session.isAdmin());
  protected readonly isOperator = computed(() => hasRole(this.session.role(), 'operator'));

  protected readonly settings = loadable(() => this.api.settings());
  protected readonly windows = loadable(() => this.api.maintenanceWindows());
  protected readonly sensors = loadable(() => this.api.sensors());

  protected readonly ui = linkedSignal<UiSettings | undefined>(() => this.settings.value()?.ui);
  protected readonly theme = computed(() => this.ui()?.theme ?? 'system');
  protected readonly borders = computed(() => this.ui()?.borders ?? 'on');
  protected readonly live = computed(() => this.ui()?.live ?? 'on');
  /** The account's language; one it asks for that is not shipped shows as the one in use. */
  protected readonly language = linkedSignal<LanguageTag>(
    () => shippedLanguage(this.session.info()?.ui?.language) ?? activeLanguage(),
  );
  protected readonly saving = signal(false);
  private readonly appearanceStatus = signal<'saving' | 'saved' | undefined>(undefined);
  protected readonly appearanceStatusText = computed(() => {
    const status = this.appearanceStatus();
    if (status === 'saving') return t('common.actions.saving');
    return status === 'saved' ? t('settings.appearance.saved') : '';
  });
  protected readonly appearanceError = signal<string | undefined>(undefined);

  protected readonly apiKey = linkedSignal(() => this.settings.value()?.api_key ?? null);
  protected readonly revealed = signal(false);
  protected readonly keyChange = new CredentialChange({
    copied: 'settings.apiKey.copied',
    copyFailed: 'settings.apiKey.copyFailed',
  });
  /** The lead sentence around the header name, which is shown as code. */
  protected readonly apiKeyLead = computed(() => {
    return around('settings.apiKey.lead', 'header');
  });

  protected readonly creating = signal(false);
  /** A server refusal (verbatim), or `incomplete` when a field is missing. */
  private readonly createError = signal<{ server: string } | 'incomplete' | undefined>(undefined);
  protected readonly createErrorText = computed(() => {
    const error = this.createError();
    if (error === 'incomplete') return t('settings.maintenance.incomplete');
    return error?.server;
  });
  protected readonly deleting = signal<number | undefined>(undefined);
  protected readonly deleteError = signal<string | undefined>(undefined);

  private readonly sensorNames = computed(
    () => new Map((this.sensors.value() ?? []).map((sensor) => [sensor.id, sensor.name])),
  );

  protected readonly utc = utcText;

  protected checked(event: Event): boolean {
    return (event.target as HTMLInputElement).checked;
  }

  protected mask(key: string): string {
    return `${'•'.repeat(Math.max(8, key.length - 4))}${key.slice(-4)}`;
  }

  protected sensorText(window: MaintenanceWindow): string {
    if (window.all_sensors || window.sensors.length === 0) return t('settings.maintenance.allSensors');
    const names = this.sensorNames();
    return window.sensors
      .map((id) => names.get(id) ?? t('settings.maintenance.unknownSensor', { id }))
      .join(', ');
  }

  protected setTheme(theme: Theme): void {
    this.themeApplier.apply(theme);
    void this.save({ theme });
  }

  protected setLanguage(event: Event): void {
    const language = shippedLanguage((event.target as HTMLSelectElement).value);
    if (!language) return;
    this.language.set(language);
    void this.save({ language });
  }

  protected async save(change: UiChange): Promise<void> {
    const before = this.ui();
    const languageBefore = this.language();
    this.saving.set(true);
    this.appearanceError.set(undefined);
    this.appearanceStatus.set('saving');
    try {
      await this.api.saveUi(change);
      if (before) this.ui.set({ ...before, ...change });
      this.appearanceStatus.set('saved');
      // The session's `ui` drives the theme and the language of the whole dashboard.
      await this.session.reload().catch(() => undefined);
    } catch (failure: unknown) {
      this.appearanceStatus.set(undefined);
      this.appearanceError.set(ApiCallError.from(failure).message);
      if (before) this.themeApplier.apply(before.theme);
      this.language.set(languageBefore);
    } finally {
      this.saving.set(false);
    }
  }

  protected async rotate(): Promise<void> {
    await this.keyChange.run(async () => {
      const answer = await this.api.rotateApiKey();
      this.apiKey.set(answer.api_key);
      return 'settings.apiKey.rotated';
    });
  }

  protected async removeKey(): Promise<void> {
    await this.keyChange.run(async () => {
      await this.api.removeApiKey();
      this.apiKey.set(null);
      return 'settings.apiKey.removed';
    });
  }

  protected async createWindow(event: Event): Promise<void> {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    const data = new FormData(form);
    const name = String(data.get('name') ?? '').trim();
    const startsAt = utcInputToIso(String(data.get('starts') ?? ''));
    const endsAt = utcInputToIso(String(data.get('ends') ?? ''));
    this.createError.set(undefined);
    if (!name || !startsAt || !endsAt) {
      this.createError.set('incomplete');
      return;
    }
    const sensors = data.getAll('sensors').map((id) => Number(id));
    this.creating.set(true);
    try {
      await this.api.createMaintenanceWindow({ name, starts_at: startsAt, ends_at: endsAt, sensors });
      form.reset();
      this.windows.reload();
    } catch (failure: unknown) {
      this.createError.set({ server: ApiCallError.from(failure).message });
    } finally {
      this.creating.set(false);
    }
  }

  protected async deleteWindow(window: MaintenanceWindow): Promise<void> {
    this.deleting.set(window.id);
    this.deleteError.set(undefined);
    try {
      await this.api.removeMaintenanceWindow(window.id);
      this.windows.reload();
    } catch (failure: unknown) {
      this.deleteError.set(ApiCallError.from(failure).message);
    } finally {
      this.deleting.set(undefined);
    }
  }
}
