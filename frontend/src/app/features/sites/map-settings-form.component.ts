import {
  ChangeDetectionStrategy,
  Component,
  DOCUMENT,
  computed,
  inject,
  input,
  linkedSignal,
  signal,
} from '@angular/core';
import type { MapSettings } from '@monitor/contracts';
import { TranslocoPipe } from '@jsverse/transloco';

import { t } from '../../core/i18n/i18n';
import { injectFocus, inputValue, whileBusy } from '../../shared/forms/form-helpers';
import { SitesStore } from './sites.store';

/** The origin a tile URL template fetches from ({s} as a); undefined for none or an unusable one. */
function tileOrigin(template: string): string | undefined {
  if (template === '') return undefined;
  try {
    return new URL(template.replaceAll('{s}', 'a').replace(/\{[zxy]\}/g, '0')).origin;
  } catch {
    return undefined;
  }
}

/**
 * The installation's map settings (administrators): tile URL, attribution, borders and names.
 * `PUT /api/map`; the server's refusal is shown as it wrote it.
 */
@Component({
  selector: 'app-map-settings-form',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [TranslocoPipe],
  template: `
    <form class="form" novalidate data-testid="map-settings-form" (submit)="save($event)">
      <div class="field">
        <label for="map-tile-url">{{ 'sites.mapSettings.tileUrl' | transloco }}</label>
        <input
          id="map-tile-url"
          class="input wide"
          type="url"
          autocomplete="off"
          spellcheck="false"
          aria-describedby="map-tile-url-hint"
          [value]="tileUrl()"
          (input)="tileUrl.set(value($event))"
        />
        <p class="hint" id="map-tile-url-hint">
          {{ 'sites.mapSettings.tileUrlHint' | transloco: placeholders }}
        </p>
      </div>
      <div class="field">
        <label for="map-attribution">{{ 'sites.mapSettings.attribution' | transloco }}</label>
        <input
          id="map-attribution"
          class="input wide"
          type="text"
          autocomplete="off"
          aria-describedby="map-attribution-hint"
          [value]="attribution()"
          (input)="attribution.set(value($event))"
        />
        <p class="hint" id="map-attribution-hint">
          {{ 'sites.mapSettings.attributionHint' | transloco }}
        </p>
      </div>
      <div class="field">
        <label class="choice">
          <input
            id="map-borders"
            type="checkbox"
            [checked]="borders()"
            (change)="borders.set(checked($event))"
          />
          <span class="choice-label">{{ 'sites.mapSettings.borders' | transloco }}</span>
          <span class="hint">{{ 'sites.mapSettings.bordersHint' | transloco }}</span>
        </label>
      </div>

      @if (failure(); as message) {
        <p class="form-error" id="map-settings-error" role="alert" tabindex="-1">{{ message }}</p>
      }
      <p class="status-line" role="status" data-testid="map-settings-status">{{ status() }}</p>
      <p class="buttons">
        <button type="submit" class="button button-primary" [disabled]="busy()">
          {{ 'sites.mapSettings.save' | transloco }}
        </button>
        @if (reloadNeeded()) {
          <button type="button" class="button" (click)="reloadPage()">
            {{ 'sites.mapSettings.reload' | transloco }}
          </button>
        }
      </p>
    </form>
  `,
  styles: `
    .wide {
      max-inline-size: 40rem;
    }
    .status-line {
      overflow-wrap: anywhere;
    }
  `,
})
export class MapSettingsFormComponent {
  private readonly store = inject(SitesStore);
  private readonly focus = injectFocus();
  private readonly document = inject(DOCUMENT);

  readonly settings = input.required<MapSettings>();

  protected readonly tileUrl = linkedSignal(() => this.settings().tile_url);
  protected readonly attribution = linkedSignal(() => this.settings().attribution);
  protected readonly borders = linkedSignal(() => this.settings().borders === 'on');
  protected readonly busy = signal(false);
  protected readonly failure = signal<string | undefined>(undefined);
  /** The tile URL's placeholders, passed in so that the catalogue text needs no ICU escapes. */
  protected readonly placeholders = { z: '{z}', x: '{x}', y: '{y}', s: '{s}' };
  /** Set after a save: the new tile origin the page must reload for, if any. */
  private readonly saved = signal<{ readonly origin: string | undefined } | undefined>(undefined);
  protected readonly status = computed(() => {
    const saved = this.saved();
    if (!saved) return '';
    return saved.origin === undefined
      ? t('sites.mapSettings.saved')
      : t('sites.mapSettings.savedReload', { origin: saved.origin });
  });
  protected readonly reloadNeeded = signal(false);

  protected value(event: Event): string {
    return inputValue(event);
  }

  protected checked(event: Event): boolean {
    return (event.target as HTMLInputElement).checked;
  }

  protected async save(event: Event): Promise<void> {
    event.preventDefault();
    if (this.busy()) return;
    const before = tileOrigin(this.settings().tile_url);
    this.failure.set(undefined);
    this.saved.set(undefined);
    await whileBusy(
      this.busy,
      async () => {
        const saved = await this.store.saveMap({
          tile_url: this.tileUrl().trim(),
          attribution: this.attribution(),
          borders: this.borders() ? 'on' : 'off',
        });
        const after = tileOrigin(saved.tile_url);
        // The browser reads the page's security policy (which lists the tile server) when it loads.
        const newOrigin = after !== undefined && after !== before && after !== this.document.location.origin;
        this.reloadNeeded.set(newOrigin);
        this.saved.set({ origin: newOrigin ? after : undefined });
      },
      (error) => {
        this.failure.set(error.message);
        this.focus('#map-settings-error');
      },
    );
  }

  protected reloadPage(): void {
    this.document.location.reload();
  }
}
