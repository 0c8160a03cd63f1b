import { ChangeDetectionStrategy, Component, computed, input, model } from '@angular/core';

import { passwordHint } from './form-helpers';
import { TextFieldComponent } from './text-field.component';

/**
 * A new password (with the password rules as its hint unless another is given) and, when `repeatId`
 * is set, a second field to type it again. Two-way bind the texts with `[(password)]` and
 * `[(repeat)]`; the owner words the errors (see `passwordProblem`), as it knows when to show them.
 */
@Component({
  selector: 'app-new-password-fields',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [TextFieldComponent],
  // The fields lay out as if they stood in the form themselves.
  host: { style: 'display: contents' },
  template: `
    <app-text-field
      [fieldId]="fieldId()"
      [label]="label()"
      type="password"
      autocomplete="new-password"
      [hint]="hint() ?? rules()"
      [(value)]="password"
      [error]="error()"
    />
    @if (repeatId(); as repeatId) {
      <app-text-field
        [fieldId]="repeatId"
        [label]="repeatLabel()"
        type="password"
        autocomplete="new-password"
        [(value)]="repeat"
        [error]="repeatError()"
      />
    }
  `,
})
export class NewPasswordFieldsComponent {
  /** The password input's id, unique on the page. */
  readonly fieldId = input.required<string>();
  readonly label = input.required<string>();
  /** Under the password field; the password rules when not given. */
  readonly hint = input<string>();
  readonly password = model('');
  readonly error = input<string>();

  /** The repeat input's id; without one there is no repeat field. */
  readonly repeatId = input<string>();
  readonly repeatLabel = input('');
  readonly repeat = model('');
  readonly repeatError = input<string>();

  protected readonly rules = computed(() => passwordHint());
}
