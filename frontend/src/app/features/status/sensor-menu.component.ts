import {
  ChangeDetectionStrategy,
  Component,
  ElementRef,
  inject,
  input,
  signal,
  viewChild,
} from '@angular/core';
import { Router } from '@angular/router';
import { TranslocoPipe } from '@jsverse/transloco';

import { ConfirmDialogComponent } from '../../shared/ui/confirm-dialog.component';
import type { SensorItem } from './sensor-item';

/**
 * The ⋯ button of a sensor and its menu (Run now, Pause/Resume unless file-managed, Acknowledge when
 * an incident is open, Edit for administrators, Move up/down when rearranging is offered), with the
 * acknowledge note in a dialog. Keyboard as for menus: arrows move, Escape closes and returns focus.
 */
@Component({
  selector: 'app-sensor-menu',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [ConfirmDialogComponent, TranslocoPipe],
  host: { '(document:click)': 'outside($event)' },
  template: `
    @let s = item().sensor();
    <button
      #trigger
      type="button"
      class="trigger"
      data-testid="sensor-menu"
      aria-haspopup="menu"
      [attr.aria-expanded]="open()"
      [attr.aria-controls]="open() ? 'sensor-menu-' + s.id : null"
      [attr.aria-label]="'status.menu.label' | transloco: { name: s.name }"
      (click)="toggleMenu()"
      (keydown)="triggerKey($event)"
    >
      <span aria-hidden="true">⋯</span>
    </button>
    @if (open()) {
      <div
        class="menu"
        role="menu"
        [id]="'sensor-menu-' + s.id"
        [attr.aria-label]="'status.menu.label' | transloco: { name: s.name }"
        (keydown)="menuKey($event)"
      >
        @if (item().canOperate()) {
          <!-- Push sensors are not probed: their results arrive by push. -->
          @if (s.type !== 'push') {
            <button
              type="button"
              role="menuitem"
              data-testid="menu-run"
              [disabled]="item().actions.busy()"
              (click)="pick(runNow)"
            >
              {{ 'status.card.runNow' | transloco }}
            </button>
          }
          @if (!s.managed_by) {
            <button
              type="button"
              role="menuitem"
              data-testid="menu-toggle"
              [disabled]="item().actions.busy()"
              (click)="pick(toggle)"
            >
              {{ (s.enabled ? 'status.card.pause' : 'status.card.resume') | transloco }}
            </button>
          }
          @if (s.incident_id !== null) {
            <button
              type="button"
              role="menuitem"
              data-testid="menu-ack"
              [disabled]="item().actions.busy()"
              (click)="openAck()"
            >
              {{ 'status.menu.acknowledge' | transloco }}
            </button>
          }
        }
        @if (item().canEdit()) {
          <button type="button" role="menuitem" data-testid="menu-edit" (click)="edit()">
            {{ 'status.menu.edit' | transloco }}
          </button>
        }
        @if (item().rearrangeHint()) {
          <button
            type="button"
            role="menuitem"
            class="note"
            aria-disabled="true"
            data-testid="menu-rearrange-hint"
          >
            {{ 'status.menu.rearrangeHint' | transloco }}
          </button>
        }
        @if (item().canReorder()) {
          <button
            type="button"
            role="menuitem"
            data-testid="move-up"
            [disabled]="item().isFirst() || item().moving()"
            (click)="pick(moveUp)"
          >
            {{ 'status.menu.moveUp' | transloco }}
          </button>
          <button
            type="button"
            role="menuitem"
            data-testid="move-down"
            [disabled]="item().isLast() || item().moving()"
            (click)="pick(moveDown)"
          >
            {{ 'status.menu.moveDown' | transloco }}
          </button>
        }
      </div>
    }
    <app-confirm-dialog
      [headingId]="'ack-title-' + s.id"
      [headingLevel]="2"
      [heading]="'status.card.acknowledgeNamed' | transloco: { name: s.name }"
      [confirmLabel]="'status.card.acknowledge' | transloco"
      [busy]="item().actions.busy()"
      [compact]="true"
      [closeOnConfirm]="false"
      (confirm)="acknowledge(note.value)"
      (closed)="ackClosed()"
    >
      <label [for]="'ack-note-' + s.id">{{ 'status.card.noteLabel' | transloco: { name: s.name } }}</label>
      <input #note class="input" [id]="'ack-note-' + s.id" maxlength="500" autocomplete="off" />
      @if (item().actions.error(); as message) {
        <p class="error" role="alert">{{ message }}</p>
      }
    </app-confirm-dialog>
  `,
  styles: `
    :host {
      position: relative;
      display: inline-flex;
      flex: none;
    }
    .trigger {
      display: inline-grid;
      place-items: center;
      inline-size: 1.75rem;
      block-size: 1.15rem;
      padding: 0;
      border: 1px solid var(--border-strong);
      border-radius: var(--radius);
      background: var(--surface);
      color: var(--text);
      font: inherit;
      font-weight: 700;
      line-height: 1;
      cursor: pointer;
    }
    .trigger:hover:not(:disabled),
    .trigger[aria-expanded='true'] {
      background: var(--hover);
    }
    .menu {
      position: absolute;
      inset-block-start: calc(100% + 2px);
      inset-inline-end: 0;
      z-index: 20;
      display: flex;
      flex-direction: column;
      min-inline-size: 10rem;
      padding: 0.25rem;
      border: 1px solid var(--border-strong);
      border-radius: var(--radius);
      background: var(--surface);
      box-shadow: var(--shadow);
    }
    .menu button {
      padding: 0.4rem 0.6rem;
      border: 0;
      border-radius: calc(var(--radius) / 2);
      background: none;
      color: var(--text);
      font: inherit;
      font-size: 0.92rem;
      text-align: start;
      white-space: nowrap;
      cursor: pointer;
    }
    .menu button:hover:not(:disabled),
    .menu button:focus-visible {
      background: var(--hover);
    }
    .menu .note {
      max-inline-size: 16rem;
      color: var(--text-muted);
      font-size: 0.85rem;
      white-space: normal;
      cursor: default;
    }
    .menu button:disabled {
      color: var(--text-muted);
      cursor: default;
    }
    .error {
      margin: 0;
      color: var(--danger);
      font-weight: 600;
    }
  `,
})
export class SensorMenuComponent {
  private readonly host = inject<ElementRef<HTMLElement>>(ElementRef);
  private readonly router = inject(Router);

  /** The card or list row whose menu this is: its sensor, actions, permissions and move output. */
  readonly item = input.required<SensorItem>();

  protected readonly open = signal(false);
  private readonly trigger = viewChild.required<ElementRef<HTMLButtonElement>>('trigger');
  private readonly ack = viewChild.required(ConfirmDialogComponent);
  private readonly note = viewChild.required<ElementRef<HTMLInputElement>>('note');

  protected readonly runNow = () => void this.item().actions.runNow();
  protected readonly toggle = () => void this.item().actions.toggle();
  protected readonly moveUp = () => this.item().move.emit(-1);
  protected readonly moveDown = () => this.item().move.emit(1);

  protected toggleMenu(): void {
    if (this.open()) this.close(true);
    else this.show(0);
  }

  protected triggerKey(event: KeyboardEvent): void {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    event.preventDefault();
    this.show(event.key === 'ArrowUp' ? -1 : 0);
  }

  protected menuKey(event: KeyboardEvent): void {
    const items = this.items();
    const at = items.indexOf(document.activeElement as HTMLElement);
    const focusAt = (index: number) => items[(index + items.length) % items.length]?.focus();
    switch (event.key) {
      case 'ArrowDown':
        focusAt(at + 1);
        break;
      case 'ArrowUp':
        focusAt(at - 1);
        break;
      case 'Home':
        focusAt(0);
        break;
      case 'End':
        focusAt(-1);
        break;
      case 'Escape':
        this.close(true);
        break;
      case 'Tab':
        this.close(false);
        return;
      default:
        return;
    }
    event.preventDefault();
    event.stopPropagation();
  }

  protected outside(event: MouseEvent): void {
    if (this.open() && !this.host.nativeElement.contains(event.target as Node)) this.close(false);
  }

  protected pick(action: () => void): void {
    this.close(true);
    action();
  }

  protected openAck(): void {
    this.close(false);
    this.item().actions.error.set(undefined);
    this.ack().open();
    this.note().nativeElement.focus();
  }

  protected async acknowledge(note: string): Promise<void> {
    if (await this.item().actions.acknowledge(note)) this.ack().close(true);
  }

  protected ackClosed(): void {
    this.trigger().nativeElement.focus();
  }

  protected edit(): void {
    this.close(false);
    void this.router.navigate(['/sensors', this.item().sensor().id, 'edit']);
  }

  private show(focusIndex: number): void {
    this.open.set(true);
    setTimeout(() => {
      const items = this.items();
      items[(focusIndex + items.length) % items.length]?.focus();
    });
  }

  private close(returnFocus: boolean): void {
    this.open.set(false);
    if (returnFocus) this.trigger().nativeElement.focus();
  }

  private items(): HTMLElement[] {
    return [...this.host.nativeElement.querySelectorAll<HTMLElement>('[role="menuitem"]:not(:disabled)')];
  }
}
