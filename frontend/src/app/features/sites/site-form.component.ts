import {
  ChangeDetectionStrategy,
  Component,
  computed,
  inject,
  input,
  linkedSignal,
  output,
  signal,
} from '@angular/core';
import type { SiteDetail, SiteInput, SiteKind } from '@monitor/contracts';
import { TranslocoPipe } from '@jsverse/transloco';

import { t } from '../../core/i18n/i18n';
import { injectFocus, inputValue, whileBusy } from '../../shared/forms/form-helpers';
import { SitesStore } from './sites.store';

/** A site kind as people read it, in the active language. */
export function kindLabel(kind: SiteKind): string {
  return t(`sites.kind.${kind}`);
}

/** A coordinate as typed: '' is none; a comma works as the decimal point too. */
function parseCoordinate(text: string): number | null | 'invalid' {
  const trimmed = text.trim().replace(',', '.');
  if (trimmed === '') return null;
  const value = Number(trimmed);
  return Number.isFinite(value) ? value : 'invalid';
}

type FormProblem = { readonly kind: 'server'; readonly message: string } | { readonly kind: 'lat' | 'lon' };

const coordinateText = (value: number | null) => (value === null ? '' : String(value));

/**
 * Creates a site (no `site`) or renames, re-kinds and moves one. Only the changed fields are sent;
 * the server's refusal is shown as it wrote it.
 */
@Component({
  selector: 'app-site-form',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [TranslocoPipe],
  template: `
    <form class="form" novalidate [attr.data-testid]="prefix() + '-form'" (submit)="save($event)">
      <div class="field">
        <label [for]="prefix() + '-name'">{{ 'sites.form.name' | transloco }}</label>
        <input
          class="input"
          type="text"
          autocomplete="off"
          maxlength="100"
          [id]="prefix() + '-name'"
          [value]="name()"
          (input)="name.set(value($event))"
        />
      </div>
      <div class="field">
        <label [for]="prefix() + '-kind'">{{ 'sites.form.kind' | transloco }}</label>
        <select class="select" [id]="prefix() + '-kind'" (change)="setKind($event)">
          @for (option of kinds(); track option) {
            <option [value]="option" [selected]="option === kind()">{{ kindLabel(option) }}</option>
          }
        </select>
      </div>
      <fieldset class="field coordinates" [attr.aria-describedby]="prefix() + '-coords-hint'">
        <legend>{{ 'sites.coordinates' | transloco }}</legend>
        <div class="pair">
          <div class="field">
            <label [for]="prefix() + '-lat'">{{ 'sites.form.latitude' | transloco }}</label>
            <input
              class="input"
              type="text"
              inputmode="decimal"
              autocomplete="off"
              [id]="prefix() + '-lat'"
              [value]="lat()"
              (input)="lat.set(value($event))"
            />
          </div>
          <div class="field">
            <label [for]="prefix() + '-lon'">{{ 'sites.form.longitude' | transloco }}</label>
            <input
              class="input"
              type="text"
              inputmode="decimal"
              autocomplete="off"
              [id]="prefix() + '-lon'"
              [value]="lon()"
              (input)="lon.set(value($event))"
            />
          </div>
        </div>
        <p class="hint" [id]="prefix() + '-coords-hint'">
          {{ 'sites.form.coordinatesHint' | transloco }}
        </p>
      </fieldset>

      @if (failure(); as message) {
        <p class="form-error" role="alert" tabindex="-1" [id]="prefix() + '-error'">{{ message }}</p>
      }
      <p class="buttons">
        <button type="submit" class="button button-primary" [disabled]="busy()">
          {{
            site()
              ? ('sites.form.saveNamed' | transloco: { name: site()?.name })
              : ('sites.form.create' | transloco)
          }}
        </button>
        @if (site()) {
          <button type="button" class="button" (click)="cancelled.emit()">
            {{ 'common.actions.cancel' | transloco }}
          </button>
        }
      </p>
    </form>
  `,
  styles: `
    .coordinates {
      margin: 0;
    }
    .pair {
      display: flex;
      flex-wrap: wrap;
      gap: 0.75rem 1rem;
    }
    .pair .field {
      flex: 1 1 9rem;
      max-inline-size: 12rem;
    }
    .pair label {
      font-weight: 500;
    }
  `,
})
export class SiteFormComponent {
  private readonly store = inject(SitesStore);
  private readonly focus = injectFocus();

  /** The site to change; absent to create one. */
  readonly site = input<SiteDetail>();
  readonly kinds = input.required<readonly SiteKind[]>();
  /** Unique on the page: the ids of the controls start with it. */
  readonly prefix = input.required<string>();
  readonly saved = output<SiteDetail>();
  readonly cancelled = output();

  protected readonly kindLabel = kindLabel;
  protected readonly name = linkedSignal(() => this.site()?.name ?? '');
  protected readonly kind = linkedSignal<SiteKind>(() => this.site()?.kind ?? 'local');
  protected readonly lat = linkedSignal(() => coordinateText(this.site()?.lat ?? null));
  protected readonly lon = linkedSignal(() => coordinateText(this.site()?.lon ?? null));
  protected readonly busy = signal(false);
  /** The server's refusal verbatim, or which coordinate the browser could not read. */
  protected readonly problem = signal<FormProblem | undefined>(undefined);
  protected readonly failure = computed(() => {
    const problem = this.problem();
    if (!problem) return undefined;
    return problem.kind === 'server' ? problem.message : t(`sites.form.notANumber.${problem.kind}`);
  });

  private readonly editing = computed(() => this.site() !== undefined);

  protected value(event: Event): string {
    return inputValue(event);
  }

  protected setKind(event: Event): void {
    const kind = this.kinds().find((option) => option === inputValue(event));
    if (kind) this.kind.set(kind);
  }

  protected async save(event: Event): Promise<void> {
    event.preventDefault();
    if (this.busy()) return;
    const lat = parseCoordinate(this.lat());
    const lon = parseCoordinate(this.lon());
    if (lat === 'invalid' || lon === 'invalid') {
      this.fail({ kind: lat === 'invalid' ? 'lat' : 'lon' });
      return;
    }
    const body = this.body(lat, lon);
    const site = this.site();
    if (site && Object.keys(body).length === 0) {
      this.cancelled.emit();
      return;
    }
    this.problem.set(undefined);
    await whileBusy(
      this.busy,
      async () => {
        const result = site ? await this.store.update(site.name, body) : await this.store.create(body);
        if (!site) {
          this.name.set('');
          this.lat.set('');
          this.lon.set('');
        }
        this.saved.emit(result);
      },
      (error) => this.fail({ kind: 'server', message: error.message }),
    );
  }

  /** A new site: every field. A change: only what differs (coordinates always as a pair). */
  private body(lat: number | null, lon: number | null): SiteInput {
    const name = this.name().trim();
    const site = this.site();
    if (!this.editing() || !site) return { name, kind: this.kind(), lat, lon };
    const body: SiteInput = {};
    if (name !== site.name) body.name = name;
    if (this.kind() !== site.kind) body.kind = this.kind();
    if (lat !== site.lat || lon !== site.lon) {
      body.lat = lat;
      body.lon = lon;
    }
    return body;
  }

  private fail(problem: FormProblem): void {
    this.problem.set(problem);
    this.focus(`#${this.prefix()}-error`);
  }
}
