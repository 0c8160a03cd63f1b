import { ChangeDetectionStrategy, Component, computed, inject, input } from '@angular/core';
import { TranslocoPipe } from '@jsverse/transloco';

import { t } from '../../core/i18n/i18n';

import { inputValue } from '../../shared/forms/form-helpers';
import { SensorEditorStore } from './sensor-editor.store';
import { isSecretSpec, OPTION_SPECS, type OptionSpec, optionHelp, optionLabel } from './sensor-form';

/** The options of the draft's type, each with its help text, default and bounds. */
@Component({
  selector: 'app-sensor-options',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [TranslocoPipe],
  template: `
    <fieldset class="form-group" [disabled]="disabled()">
      <legend>{{ 'editor.options.legend' | transloco: { type: label() } }}</legend>
      @for (spec of specs(); track spec.name) {
        @switch (spec.kind) {
          @case ('boolean') {
            <div class="field">
              <label class="choice">
                <input
                  type="checkbox"
                  [id]="'opt-' + spec.name"
                  [checked]="value(spec) === true"
                  [attr.aria-describedby]="'opt-' + spec.name + '-hint'"
                  (change)="setBoolean(spec, $event)"
                />
                <span class="choice-label">{{ optionLabel(spec) }}</span>
              </label>
              <p class="hint" [id]="'opt-' + spec.name + '-hint'">{{ optionHelp(spec) }}</p>
            </div>
          }
          @case ('headers') {
            <fieldset class="field headers" [attr.aria-describedby]="'opt-headers-hint'">
              <legend>{{ optionLabel(spec) }}</legend>
              <p class="hint" id="opt-headers-hint">{{ optionHelp(spec) }}</p>
              @for (row of store.draft().headers; track $index) {
                <div class="header-row">
                  <label class="visually-hidden" [for]="'header-key-' + $index">{{
                    'editor.headers.nameLabel' | transloco: { n: $index + 1 }
                  }}</label>
                  <input
                    class="input"
                    [id]="'header-key-' + $index"
                    [placeholder]="'editor.headers.namePlaceholder' | transloco"
                    autocomplete="off"
                    [value]="row.key"
                    (input)="setHeader($index, 'key', $event)"
                  />
                  <label class="visually-hidden" [for]="'header-value-' + $index">{{
                    'editor.headers.valueLabel' | transloco: { n: $index + 1 }
                  }}</label>
                  <input
                    class="input"
                    [id]="'header-value-' + $index"
                    [placeholder]="
                      (row.stored ? 'editor.options.storedPlaceholder' : 'editor.headers.valuePlaceholder')
                        | transloco
                    "
                    autocomplete="off"
                    [value]="row.value"
                    (input)="setHeader($index, 'value', $event)"
                  />
                  <button type="button" class="button button-small" (click)="removeHeader($index)">
                    <span aria-hidden="true">{{ 'editor.headers.remove' | transloco }}</span><span
                      class="visually-hidden"
                      >{{ 'editor.headers.removeLabel' | transloco: { n: $index + 1 } }}</span
                    >
                  </button>
                </div>
              }
              <p>
                <button type="button" class="button button-small" (click)="addHeader()">
                  {{ 'editor.headers.add' | transloco }}
                </button>
              </p>
            </fieldset>
          }
          @default {
            <div class="field">
              <label [for]="'opt-' + spec.name"
                >{{ optionLabel(spec) }}
                @if (spec.required) {
                  <span aria-hidden="true"> *</span
                  ><span class="visually-hidden"> {{ 'editor.options.required' | transloco }}</span>
                }
              </label>
              @if (spec.kind === 'select') {
                <select
                  class="select"
                  [id]="'opt-' + spec.name"
                  [attr.aria-describedby]="'opt-' + spec.name + '-hint'"
                  (change)="setText(spec, $event)"
                >
                  <option value="" [selected]="value(spec) === ''">
                    {{ 'editor.options.default' | transloco }}
                  </option>
                  @for (choice of spec.choices ?? []; track choice) {
                    <option [value]="choice" [selected]="choice === value(spec)">{{ choice }}</option>
                  }
                </select>
              } @else if (spec.kind === 'textarea') {
                <textarea
                  class="input"
                  rows="3"
                  [id]="'opt-' + spec.name"
                  [attr.placeholder]="
                    isStored(spec) ? ('editor.options.storedPlaceholder' | transloco) : null
                  "
                  [attr.aria-describedby]="'opt-' + spec.name + '-hint'"
                  [value]="value(spec)"
                  (input)="setText(spec, $event)"
                ></textarea>
              } @else {
                <input
                  class="input"
                  [id]="'opt-' + spec.name"
                  [type]="spec.kind === 'secret' ? 'password' : spec.kind === 'number' ? 'number' : 'text'"
                  [attr.inputmode]="spec.kind === 'number' ? 'decimal' : null"
                  [attr.min]="spec.min ?? null"
                  [attr.max]="spec.max ?? null"
                  [attr.autocomplete]="spec.kind === 'secret' ? 'new-password' : 'off'"
                  [attr.placeholder]="
                    isStored(spec) ? ('editor.options.storedPlaceholder' | transloco) : null
                  "
                  [attr.aria-required]="spec.required ? 'true' : null"
                  [attr.aria-describedby]="'opt-' + spec.name + '-hint'"
                  [value]="value(spec)"
                  (input)="setText(spec, $event)"
                  spellcheck="false"
                />
              }
              <p class="hint" [id]="'opt-' + spec.name + '-hint'">
                {{ optionHelp(spec) }}
                @if (isStored(spec)) {
                  {{ 'editor.options.storedHint' | transloco }}
                }
              </p>
            </div>
          }
        }
      }
    </fieldset>
  `,
  styles: `
    .headers {
      border: 0;
      padding: 0;
      margin: 0;
      min-inline-size: 0;
    }
    .header-row {
      display: grid;
      grid-template-columns: minmax(0, 1fr) minmax(0, 1fr) auto;
      gap: 0.4rem;
      align-items: center;
      margin-block-end: 0.4rem;
    }
    .headers p {
      margin: 0 0 0.4rem;
    }
    /* Phones: name above value, the Remove button beside both. */
    @media (max-width: 40rem) {
      .header-row {
        grid-template-columns: minmax(0, 1fr) auto;
        margin-block-end: 0.75rem;
      }
      .header-row .button {
        grid-column: 2;
        grid-row: 1 / span 2;
      }
    }
    textarea.input {
      max-inline-size: 100%;
      resize: vertical;
    }
  `,
})
export class SensorOptionsComponent {
  protected readonly store = inject(SensorEditorStore);
  readonly disabled = input(false);

  protected readonly specs = computed(() => OPTION_SPECS[this.store.draft().type]);
  protected readonly label = computed(() => t(`editor.type.${this.store.draft().type}.label`));

  protected value(spec: OptionSpec): string | boolean {
    return this.store.draft().options[spec.name] ?? '';
  }

  protected isStored(spec: OptionSpec): boolean {
    return isSecretSpec(spec) && this.store.draft().stored.includes(spec.name);
  }

  /** Called from the template, where the language signal they read re-renders the view on a change. */
  protected optionLabel(spec: OptionSpec): string {
    return optionLabel(spec);
  }

  protected optionHelp(spec: OptionSpec): string {
    return optionHelp(spec);
  }

  protected setText(spec: OptionSpec, event: Event): void {
    this.store.setOption(spec.name, inputValue(event));
  }

  protected setBoolean(spec: OptionSpec, event: Event): void {
    this.store.setOption(spec.name, (event.target as HTMLInputElement).checked);
  }

  protected setHeader(index: number, part: 'key' | 'value', event: Event): void {
    const rows = this.store
      .draft()
      // A renamed header no longer has a stored value to keep.
      .headers.map((row, i) =>
        i !== index
          ? row
          : part === 'key'
            ? { key: inputValue(event), value: row.value }
            : { ...row, value: inputValue(event) },
      );
    this.store.setHeaders(rows);
  }

  protected addHeader(): void {
    this.store.setHeaders([...this.store.draft().headers, { key: '', value: '' }]);
  }

  protected removeHeader(index: number): void {
    this.store.setHeaders(this.store.draft().headers.filter((_, i) => i !== index));
  }
}
