import { ChangeDetectionStrategy, Component, computed, inject, linkedSignal, signal } from '@angular/core';
import { RouterLink } from '@angular/router';
import type {
  ApiKeyResponse,
  MaintenanceWindow,
  OnOff,
  Sensor,
  SettingsResponse,
  Theme,
  UiSettings,
} from '@monitor/contracts';

import { ApiClient } from '../../core/api/api-client.service';
import { ApiCallError } from '../../core/api/api-call-error';
import { loadable } from '../../core/api/loadable';
import { hasRole } from '../../core/session/roles';
import { SessionStore } from '../../core/session/session.store';
import { ErrorAlertComponent } from '../../shared/ui/error-alert.component';
import { LoadingIndicatorComponent } from '../../shared/ui/loading-indicator.component';
import { ThemeApplier } from './theme';

const THEMES: readonly { readonly value: Theme; readonly label: string }[] = [
  { value: 'light', label: 'Light' },
  { value: 'dark', label: 'Dark' },
  { value: 'system', label: 'Same as the system' },
];

/** `2026-11-22T10:00` typed into a datetime-local field, read as UTC, as ISO 8601. */
export function utcInputToIso(value: string): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(value)) return undefined;
  const date = new Date(`${value.length === 16 ? `${value}:00` : value}Z`);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** An instant as `2026-11-22 10:00 UTC`. */
export function utcText(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * `/settings`: the signed-in account's appearance (theme, map borders, live updates), the API key
 * (administrators), maintenance windows, and links to the other places where settings live.
 */
@Component({
  selector: 'app-settings-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [RouterLink, ErrorAlertComponent, LoadingIndicatorComponent],
  template: `
    <div class="page-heading">
      <h1>Settings</h1>
    </div>

    @if (settings.error(); as error) {
      <app-error-alert
        heading="The settings could not be read"
        [message]="error.message"
        (retry)="settings.reload()"
      />
    } @else if (!settings.value()) {
      <app-loading-indicator label="Loading settings…" />
    } @else {
      <section class="panel" aria-labelledby="appearance-heading" data-testid="appearance">
        <h2 id="appearance-heading">Appearance</h2>
        <p class="lead">Stored with your account; applied at once.</p>
        <fieldset class="field">
          <legend>Theme</legend>
          @for (option of themes; track option.value) {
            <label class="choice">
              <input
                type="radio"
                name="theme"
                [value]="option.value"
                [checked]="theme() === option.value"
                [disabled]="saving()"
                (change)="setTheme(option.value)"
              />
              <span class="choice-label">{{ option.label }}</span>
            </label>
          }
        </fieldset>
        <div class="field">
          <label class="choice">
            <input
              type="checkbox"
              data-testid="ui-borders"
              [checked]="borders() === 'on'"
              [disabled]="saving()"
              (change)="save({ borders: checked($event) ? 'on' : 'off' })"
            />
            <span class="choice-label">Show country borders on the map</span>
          </label>
          <label class="choice">
            <input
              type="checkbox"
              data-testid="ui-live"
              [checked]="live() === 'on'"
              [disabled]="saving()"
              (change)="save({ live: checked($event) ? 'on' : 'off' })"
            />
            <span class="choice-label">Live updates</span>
            <span class="hint">Off: the dashboard does not subscribe to the server's event stream.</span>
          </label>
        </div>
        <p class="status-line" role="status" data-testid="appearance-status">{{ appearanceStatus() }}</p>
        @if (appearanceError(); as message) {
          <app-error-alert heading="The setting was not saved" [message]="message" [retryable]="false" />
        }
      </section>

      @if (isAdmin()) {
        <section class="panel" aria-labelledby="api-key-heading" data-testid="api-key">
          <h2 id="api-key-heading">API key</h2>
          <p class="lead">
            Send it as the <code>X-API-Key</code> header. It acts as an administrator without an account.
          </p>
          @if (apiKey(); as key) {
            <p class="key-line">
              <code class="mono key" data-testid="api-key-value">{{ revealed() ? key : mask(key) }}</code>
              <button
                type="button"
                class="button button-small"
                [attr.aria-pressed]="revealed()"
                (click)="revealed.set(!revealed())"
              >
                {{ revealed() ? 'Hide' : 'Reveal' }}
              </button>
              <button type="button" class="button button-small" (click)="copy(key)">Copy</button>
            </p>
          } @else {
            <p data-testid="api-key-none">No API key is set.</p>
          }
          @if (confirming(); as action) {
            <div class="notice" data-testid="api-key-confirm">
              <p>
                {{
                  action === 'rotate'
                    ? 'Make a new key? The current key stops working at once.'
                    : 'Remove the key? Anything using it is refused from now on.'
                }}
              </p>
              <div class="buttons">
                <button
                  type="button"
                  class="button button-primary button-danger"
                  [disabled]="keyBusy()"
                  (click)="action === 'rotate' ? rotate() : removeKey()"
                >
                  {{ action === 'rotate' ? 'Make a new key' : 'Remove the key' }}
                </button>
                <button type="button" class="button" (click)="confirming.set(undefined)">Cancel</button>
              </div>
            </div>
          } @else {
            <div class="buttons">
              <button type="button" class="button" (click)="confirming.set('rotate')">
                {{ apiKey() ? 'Rotate key…' : 'Create key' }}
              </button>
              @if (apiKey()) {
                <button type="button" class="button button-danger" (click)="confirming.set('remove')">
                  Remove key…
                </button>
              }
            </div>
          }
          <p class="status-line" role="status" data-testid="api-key-status">{{ keyStatus() }}</p>
          @if (keyError(); as message) {
            <app-error-alert heading="The API key was not changed" [message]="message" [retryable]="false" />
          }
        </section>
      }

      <section class="panel" aria-labelledby="maintenance-heading" data-testid="maintenance">
        <h2 id="maintenance-heading">Maintenance windows</h2>
        <p class="lead">Inside a window, incidents and alerts for its sensors are suppressed.</p>
        @if (windows.error(); as error) {
          <app-error-alert
            heading="The maintenance windows could not be read"
            [message]="error.message"
            (retry)="windows.reload()"
          />
        } @else if (windows.value(); as list) {
          @if (list.length === 0) {
            <p data-testid="maintenance-empty">No maintenance windows.</p>
          } @else {
            <ul class="windows" data-testid="maintenance-list">
              @for (window of list; track window.id) {
                <li class="window" data-testid="maintenance-window">
                  <p class="window-name">
                    <strong>{{ window.name }}</strong>
                    @if (window.managed_by) {
                      <span class="badge" title="Declared in {{ window.managed_by }}">File-managed</span>
                    }
                  </p>
                  <p class="window-when">{{ utc(window.starts_at) }} to {{ utc(window.ends_at) }}</p>
                  <p class="window-sensors">{{ sensorText(window) }}</p>
                  @if (isAdmin() && !window.managed_by) {
                    <button
                      type="button"
                      class="button button-small button-danger"
                      [attr.aria-label]="'Delete maintenance window ' + window.name"
                      [disabled]="deleting() === window.id"
                      (click)="deleteWindow(window)"
                    >
                      Delete
                    </button>
                  }
                </li>
              }
            </ul>
          }
        } @else {
          <app-loading-indicator label="Loading maintenance windows…" />
        }
        @if (deleteError(); as message) {
          <app-error-alert heading="The window was not deleted" [message]="message" [retryable]="false" />
        }

        @if (isAdmin()) {
          <form class="form" data-testid="maintenance-form" (submit)="createWindow($event)">
            <h3>New maintenance window</h3>
            <div class="field">
              <label for="mw-name">Name</label>
              <input id="mw-name" class="input" name="name" required autocomplete="off" />
            </div>
            <div class="field">
              <label for="mw-start">Starts (UTC)</label>
              <input
                id="mw-start"
                class="input"
                name="starts"
                type="datetime-local"
                required
                aria-describedby="mw-utc"
              />
            </div>
            <div class="field">
              <label for="mw-end">Ends (UTC)</label>
              <input
                id="mw-end"
                class="input"
                name="ends"
                type="datetime-local"
                required
                aria-describedby="mw-utc"
              />
              <p class="hint" id="mw-utc">Times are in UTC, not your local time.</p>
            </div>
            <div class="field">
              <label for="mw-sensors">Sensors</label>
              <select
                id="mw-sensors"
                class="select"
                name="sensors"
                multiple
                size="5"
                aria-describedby="mw-sensors-hint"
              >
                @for (sensor of sensors.value() ?? []; track sensor.id) {
                  <option [value]="sensor.id">{{ sensor.name }}</option>
                }
              </select>
              <p class="hint" id="mw-sensors-hint">Select none for all sensors.</p>
            </div>
            <div class="buttons">
              <button type="submit" class="button button-primary" [disabled]="creating()">
                {{ creating() ? 'Adding…' : 'Add window' }}
              </button>
            </div>
            @if (createError(); as message) {
              <app-error-alert heading="The window was not added" [message]="message" [retryable]="false" />
            }
          </form>
        }
      </section>

      <section class="panel" aria-labelledby="elsewhere-heading">
        <h2 id="elsewhere-heading">Other settings</h2>
        <ul class="links">
          <li><a routerLink="/account">Account</a>: your password and second factor</li>
          @if (isAdmin()) {
            <li><a routerLink="/accounts">Accounts</a>: who can sign in, and their roles</li>
          }
          <li><a routerLink="/sites">Sites &amp; map</a>: sites, map tiles and borders</li>
          @if (isOperator()) {
            <li><a routerLink="/admin">Administration</a>: backup and restore, sample data, doctor</li>
          }
          <li><a routerLink="/about">About</a>: the running version</li>
        </ul>
      </section>
    }
  `,
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
    fieldset {
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
  private readonly api = inject(ApiClient);
  private readonly session = inject(SessionStore);
  private readonly themeApplier = inject(ThemeApplier);

  protected readonly themes = THEMES;
  protected readonly isAdmin = computed(() => this.session.isAdmin());
  protected readonly isOperator = computed(() => hasRole(this.session.role(), 'operator'));

  protected readonly settings = loadable(() => this.api.get<SettingsResponse>('/api/settings'));
  protected readonly windows = loadable(() => this.api.get<MaintenanceWindow[]>('/api/maintenance'));
  protected readonly sensors = loadable(() => this.api.get<Sensor[]>('/api/sensors'));

  protected readonly ui = linkedSignal<UiSettings | undefined>(() => this.settings.value()?.ui);
  protected readonly theme = computed(() => this.ui()?.theme ?? 'system');
  protected readonly borders = computed(() => this.ui()?.borders ?? 'on');
  protected readonly live = computed(() => this.ui()?.live ?? 'on');
  protected readonly saving = signal(false);
  protected readonly appearanceStatus = signal('');
  protected readonly appearanceError = signal<string | undefined>(undefined);

  protected readonly apiKey = linkedSignal(() => this.settings.value()?.api_key ?? null);
  protected readonly revealed = signal(false);
  protected readonly confirming = signal<'rotate' | 'remove' | undefined>(undefined);
  protected readonly keyBusy = signal(false);
  protected readonly keyStatus = signal('');
  protected readonly keyError = signal<string | undefined>(undefined);

  protected readonly creating = signal(false);
  protected readonly createError = signal<string | undefined>(undefined);
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
    if (window.all_sensors || window.sensors.length === 0) return 'All sensors';
    const names = this.sensorNames();
    return window.sensors.map((id) => names.get(id) ?? `Sensor ${id}`).join(', ');
  }

  protected setTheme(theme: Theme): void {
    this.themeApplier.apply(theme);
    void this.save({ theme });
  }

  protected async save(change: Partial<{ theme: Theme; borders: OnOff; live: OnOff }>): Promise<void> {
    const before = this.ui();
    this.saving.set(true);
    this.appearanceError.set(undefined);
    this.appearanceStatus.set('Saving…');
    try {
      await this.api.put('/api/settings', { ui: change });
      if (before) this.ui.set({ ...before, ...change });
      this.appearanceStatus.set('Saved.');
      await this.session.reload().catch(() => undefined);
    } catch (failure: unknown) {
      this.appearanceStatus.set('');
      this.appearanceError.set(ApiCallError.from(failure).message);
      if (before) this.themeApplier.apply(before.theme);
    } finally {
      this.saving.set(false);
    }
  }

  protected async copy(key: string): Promise<void> {
    this.keyError.set(undefined);
    try {
      await navigator.clipboard.writeText(key);
      this.keyStatus.set('Copied to the clipboard.');
    } catch {
      this.keyStatus.set('');
      this.keyError.set('The browser did not allow copying. Reveal the key and copy it by hand.');
    }
  }

  protected async rotate(): Promise<void> {
    await this.changeKey(async () => {
      const answer = await this.api.post<ApiKeyResponse>('/api/api-key');
      this.apiKey.set(answer.api_key);
      return 'A new key was made; the old one no longer works.';
    });
  }

  protected async removeKey(): Promise<void> {
    await this.changeKey(async () => {
      await this.api.delete('/api/api-key');
      this.apiKey.set(null);
      return 'The key was removed.';
    });
  }

  private async changeKey(change: () => Promise<string>): Promise<void> {
    this.keyBusy.set(true);
    this.keyError.set(undefined);
    this.keyStatus.set('');
    try {
      this.keyStatus.set(await change());
      this.confirming.set(undefined);
    } catch (failure: unknown) {
      this.keyError.set(ApiCallError.from(failure).message);
    } finally {
      this.keyBusy.set(false);
    }
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
      this.createError.set('Give the window a name, a start and an end.');
      return;
    }
    const sensors = data.getAll('sensors').map((id) => Number(id));
    this.creating.set(true);
    try {
      await this.api.post('/api/maintenance', { name, starts_at: startsAt, ends_at: endsAt, sensors });
      form.reset();
      this.windows.reload();
    } catch (failure: unknown) {
      this.createError.set(ApiCallError.from(failure).message);
    } finally {
      this.creating.set(false);
    }
  }

  protected async deleteWindow(window: MaintenanceWindow): Promise<void> {
    this.deleting.set(window.id);
    this.deleteError.set(undefined);
    try {
      await this.api.delete(`/api/maintenance/${window.id}`);
      this.windows.reload();
    } catch (failure: unknown) {
      this.deleteError.set(ApiCallError.from(failure).message);
    } finally {
      this.deleting.set(undefined);
    }
  }
}
