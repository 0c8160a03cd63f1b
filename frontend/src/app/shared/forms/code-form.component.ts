import { ChangeDetectionStrategy, Component, input, model, output } from '@angular/core';

import { ErrorAlertComponent } from '../ui/error-alert.component';
import { TextFieldComponent } from './text-field.component';

/** A one-time code as typed, without the spaces people put in to read it. */
export function typedCode(text: string): string {
  return text.replace(/\s+/g, '');
}

/**
 * A form that asks for one one-time code: the field, the last failure, a submit button (its label
 * says when the code is being checked) and a second button to step back. Two-way bind the text with
 * `[(value)]`; the owner checks the code on `submitted` (the submit event, to prevent) and handles
 * `back`. Texts come in already translated. The browser and password managers may fill the code in;
 * `digitsOnly` asks phones for the number pad (leave it off where recovery codes are taken too).
 */
@Component({
  selector: 'app-code-form',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [TextFieldComponent, ErrorAlertComponent],
  // A block, so that a margin its owner gives it stands where the buttons' own margin would.
  host: { style: 'display: block' },
  template: `
    <form class="form" novalidate (submit)="submitted.emit($event)" [attr.data-testid]="testId()">
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
      @if (failure(); as message) {
        <app-error-alert [heading]="failureHeading()" [message]="message" [retryable]="false" />
      }
      <p class="buttons">
        <button type="submit" class="button button-primary" [disabled]="busy()">
          {{ busy() ? busyLabel() : submitLabel() }}
        </button>
        <button type="button" class="button" [disabled]="busy()" (click)="back.emit()">
          {{ backLabel() }}
        </button>
      </p>
    </form>
  `,
})
export class CodeFormComponent {
  /** The form's `data-testid`. */
  readonly testId = input.required<string>();
  /** The code input's id, unique on the page. */
  readonly fieldId = input.required<string>();
  readonly label = input.required<string>();
  readonly hint = input<string>();
  readonly maxlength = input.required<number>();
  readonly digitsOnly = input(false);
  readonly value = model('');
  /** What is wrong with the code typed. */
  readonly error = input<string>();
  /** The last call's failure, shown under the field. */
  readonly failure = input<string>();
  readonly failureHeading = input.required<string>();
  readonly busy = input(false);
  readonly submitLabel = input.required<string>();
  readonly busyLabel = input.required<string>();
  readonly backLabel = input.required<string>();

  readonly submitted = output<Event>();
  readonly back = output();
}
