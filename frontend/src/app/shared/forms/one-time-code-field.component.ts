import { ChangeDetectionStrategy, Component, input, model } from '@angular/core';

import { TextFieldComponent } from './text-field.component';

/** A one-time code as typed, without the spaces people put in to read it. */
export function typedCode(text: string): string {
  return text.replace(/\s+/g, '');
}

/**
 * A field for a one-time code from an authenticator app (the browser and password managers may fill
 * it in). `digitsOnly` asks phones for the number pad; leave it off where recovery codes are taken
 * too. Two-way bind the text with `[(value)]`.
 */
@Component({
  selector: 'app-one-time-code-field',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [TextFieldComponent],
  // The field lays out as if it stood in the form itself.
  host: { style: 'display: contents' },
  template: `
    <app-text-field
      [fieldId]="fieldId()"
      [label]="label()"
      autocomplete="one-time-code"
      [inputmode]="digitsOnly() ? 'numeric' : undefined"
      [hint]="hint()"
      [maxlength]="maxlength()"
      [(value)]="value"
      [error]="error()"
    />
  `,
})
export class OneTimeCodeFieldComponent {
  /** The input's id, unique on the page. */
  readonly fieldId = input.required<string>();
  readonly label = input.required<string>();
  readonly hint = input<string>();
  readonly maxlength = input.required<number>();
  readonly digitsOnly = input(false);
  readonly value = model('');
  readonly error = input<string>();
}
