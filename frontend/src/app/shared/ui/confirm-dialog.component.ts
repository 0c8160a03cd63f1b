import {
  ChangeDetectionStrategy,
  Component,
  ElementRef,
  ViewEncapsulation,
  input,
  output,
  viewChild,
} from '@angular/core';
import { TranslocoPipe } from '@jsverse/transloco';

/**
 * A modal question with a confirm and a Cancel button; what it asks is the projected content (text,
 * or fields: Enter in a field confirms). Named by its heading. `open()` shows it; the browser puts
 * the focus on its first control and, when it closes, back where it was. `closed` says whether it
 * was confirmed (Cancel and Escape are not). With `closeOnConfirm` off, confirming only emits
 * `confirm`, and the owner calls `close()` once the work succeeded.
 */
@Component({
  selector: 'app-confirm-dialog',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [TranslocoPipe],
  // Unencapsulated so that the layout reaches the projected text and fields; every selector is scoped.
  encapsulation: ViewEncapsulation.None,
  template: `
    <dialog
      #dialog
      class="confirm-dialog"
      [class.compact]="compact()"
      [attr.aria-labelledby]="headingId()"
      (close)="onClose()"
    >
      <form (submit)="submit($event)">
        @if (headingLevel() === 2) {
          <h2 class="confirm-heading" [id]="headingId()">{{ heading() }}</h2>
        } @else {
          <h3 class="confirm-heading" [id]="headingId()">{{ heading() }}</h3>
        }
        <ng-content />
        <p class="buttons">
          <button
            type="submit"
            class="button button-primary"
            [class.button-danger]="danger()"
            [class.button-small]="compact()"
            [disabled]="busy()"
          >
            {{ confirmLabel() }}
          </button>
          <button type="button" class="button" [class.button-small]="compact()" (click)="close()">
            {{ 'common.actions.cancel' | transloco }}
          </button>
        </p>
      </form>
    </dialog>
  `,
  styles: `
    app-confirm-dialog {
      display: contents;
    }
    .confirm-dialog {
      max-inline-size: min(32rem, calc(100vw - 2rem));
      padding: 1.25rem;
      border: 1px solid var(--border-strong);
      border-radius: var(--radius);
      background: var(--surface);
      color: var(--text);
    }
    .confirm-dialog::backdrop {
      background: rgb(0 0 0 / 0.45);
    }
    .confirm-dialog > form {
      display: flex;
      flex-direction: column;
      gap: 0.75rem;
    }
    .confirm-dialog > form > p {
      margin: 0;
    }
    .confirm-dialog .confirm-heading {
      margin: 0;
      font-size: 1.1rem;
      overflow-wrap: anywhere;
    }
    .confirm-dialog.compact {
      max-inline-size: min(28rem, calc(100vw - 2rem));
      padding: 1rem 1.25rem;
    }
    .confirm-dialog.compact > form {
      gap: 0.5rem;
    }
    .confirm-dialog.compact .confirm-heading {
      font-size: 1.05rem;
    }
  `,
})
export class ConfirmDialogComponent {
  readonly heading = input.required<string>();
  /** The heading's id, unique on the page: the dialog is named by it. */
  readonly headingId = input.required<string>();
  readonly headingLevel = input<2 | 3>(3);
  readonly confirmLabel = input.required<string>();
  /** The confirm button warns: the action destroys or replaces something. */
  readonly danger = input(false);
  /** The confirm button is disabled meanwhile. */
  readonly busy = input(false);
  /** Smaller, for a dialog opened from a menu. */
  readonly compact = input(false);
  readonly closeOnConfirm = input(true);

  /** The confirm button was pressed (or Enter in a field). */
  readonly confirm = output();
  /** The dialog closed; true when it was confirmed. */
  readonly closed = output<boolean>();

  private readonly dialog = viewChild.required<ElementRef<HTMLDialogElement>>('dialog');
  private confirmed = false;

  open(): void {
    this.confirmed = false;
    this.dialog().nativeElement.showModal();
  }

  /** Closes it; `confirmed` is what `closed` reports. */
  close(confirmed = false): void {
    this.confirmed = confirmed;
    this.dialog().nativeElement.close();
  }

  protected submit(event: Event): void {
    event.preventDefault();
    this.confirm.emit();
    if (this.closeOnConfirm()) this.close(true);
  }

  protected onClose(): void {
    const confirmed = this.confirmed;
    this.confirmed = false;
    this.closed.emit(confirmed);
  }
}
