import { ChangeDetectionStrategy, Component, computed, input, model } from '@angular/core';

import { inputValue } from './form-helpers';

/**
 * A labelled text or password input with an optional hint and an error (announced, and linked to
 * the input with `aria-describedby`). Two-way bind the text with `[(value)]`.
 */
@Component({
  selector: 'app-text-field',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <label [for]="fieldId()">{{ label() }}</label>
    <input
      class="input"
      [id]="fieldId()"
      [type]="type()"
      [attr.name]="name() ?? fieldId()"
      [attr.autocomplete]="autocomplete()"
      [attr.inputmode]="inputmode()"
      [attr.maxlength]="maxlength()"
      [attr.aria-invalid]="error() ? 'true' : null"
      [attr.aria-describedby]="describedBy()"
      [required]="required()"
      [value]="value()"
      (input)="edited($event)"
      autocapitalize="none"
      spellcheck="false"
    />
    @if (hint(); as hint) {
      <p class="hint" [id]="fieldId() + '-hint'">{{ hint }}</p>
    }
    @if (error(); as error) {
      <p class="field-error" role="alert" [id]="fieldId() + '-error'">{{ error }}</p>
    }
  `,
  host: { class: 'field' },
})
export class TextFieldComponent {
  /** The input's id (not `id`: that would land on the host element too), unique on the page; the hint and error ids derive from it. */
  readonly fieldId = input.required<string>();
  readonly label = input.required<string>();
  readonly value = model('');
  readonly type = input<'text' | 'password'>('text');
  readonly name = input<string>();
  readonly autocomplete = input<string>('off');
  readonly inputmode = input<'text' | 'numeric'>();
  readonly maxlength = input<number>();
  readonly required = input(true);
  readonly hint = input<string>();
  /** Shown under the input and announced; the input is marked invalid while set. */
  readonly error = input<string>();

  protected readonly describedBy = computed(() => {
    const ids = [this.hint() ? `${this.fieldId()}-hint` : '', this.error() ? `${this.fieldId()}-error` : ''];
    return ids.filter(Boolean).join(' ') || null;
  });

  protected edited(event: Event): void {
    this.value.set(inputValue(event));
  }
}
