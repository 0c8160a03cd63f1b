import { ChangeDetectionStrategy, Component, computed, inject, signal, viewChild } from '@angular/core';
import { DatePipe } from '@angular/common';
import { TranslocoPipe } from '@jsverse/transloco';
import type { ClusterInstance } from '@monitor/contracts';

import { formatNumber } from '../../core/i18n/format';
import { t } from '../../core/i18n/i18n';
import { formatTimeAgo } from '../../shared/format/relative-time';
import { ConfirmDialogComponent } from '../../shared/ui/confirm-dialog.component';
import { ErrorAlertComponent } from '../../shared/ui/error-alert.component';
import { ClusterStore } from './cluster.store';

type InstanceState = 'alive' | 'stopped' | 'dead';

const stateOf = (instance: ClusterInstance): InstanceState => instance.gone ?? 'alive';

/**
 * The instances sharing the database (administrators): single instance on SQLite, or the cluster
 * on PostgreSQL with each instance's state and load. A dead instance opens a notice with a way to
 * remove it once understood; a stopped one can be removed from its row. Both confirm first.
 */
@Component({
  selector: 'app-cluster-section',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [ConfirmDialogComponent, DatePipe, ErrorAlertComponent, TranslocoPipe],
  providers: [ClusterStore],
  template: `
    @if (store.view(); as view) {
      @for (dead of deadInstances(); track dead.name) {
        <div
          class="dead-notice"
          role="alert"
          data-testid="cluster-dead-notice"
          [attr.data-instance]="dead.name"
        >
          <span class="icon" aria-hidden="true">!</span>
          <p>
            {{
              'admin.cluster.deadNotice'
                | transloco: { name: dead.name, time: (dead.last_seen_at | date: 'yyyy-MM-dd HH:mm:ss') }
            }}
          </p>
          <button
            type="button"
            class="button"
            [disabled]="store.removing() !== undefined"
            [attr.aria-label]="'admin.cluster.removeNamed' | transloco: { name: dead.name }"
            (click)="ask(dead.name)"
          >
            {{ 'admin.cluster.remove' | transloco }}
          </button>
        </div>
      }
      <p class="mode" data-testid="cluster-mode">{{ mode() }}</p>
      <p class="self" data-testid="cluster-self">
        {{ 'admin.cluster.self' | transloco }} <strong>{{ view.self }}</strong>
      </p>
      <table class="instances" data-testid="cluster-instances" aria-labelledby="cluster-heading">
        <thead>
          <tr>
            <th scope="col">{{ 'admin.cluster.column.name' | transloco }}</th>
            <th scope="col">{{ 'admin.cluster.column.version' | transloco }}</th>
            <th scope="col">{{ 'admin.cluster.column.state' | transloco }}</th>
            <th scope="col">{{ 'admin.cluster.column.started' | transloco }}</th>
            <th scope="col">{{ 'admin.cluster.column.lastSeen' | transloco }}</th>
            <th scope="col">{{ 'admin.cluster.column.sensors' | transloco }}</th>
            <th scope="col">
              <span class="visually-hidden">{{ 'admin.cluster.column.actions' | transloco }}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          @for (instance of view.instances; track instance.name) {
            <tr [attr.data-testid]="'cluster-row-' + instance.name" [attr.data-state]="state(instance)">
              <th scope="row" class="name" [attr.data-label]="'admin.cluster.column.name' | transloco">
                <span>
                  {{ instance.name }}
                  @if (instance.name === view.self) {
                    <span class="you">{{ 'admin.cluster.thisInstance' | transloco }}</span>
                  }
                </span>
              </th>
              <td [attr.data-label]="'admin.cluster.column.version' | transloco">{{ instance.version }}</td>
              <td [attr.data-label]="'admin.cluster.column.state' | transloco">
                <span class="state" [attr.data-state]="state(instance)">
                  <span class="dot" aria-hidden="true">{{ symbol[state(instance)] }}</span>
                  {{ 'admin.cluster.state.' + state(instance) | transloco }}
                </span>
              </td>
              <td [attr.data-label]="'admin.cluster.column.started' | transloco">
                <time class="when" [attr.datetime]="instance.started_at">{{
                  instance.started_at | date: 'yyyy-MM-dd HH:mm'
                }}</time>
              </td>
              <td [attr.data-label]="'admin.cluster.column.lastSeen' | transloco">
                <time
                  class="when"
                  [attr.datetime]="instance.last_seen_at"
                  [attr.title]="instance.last_seen_at"
                  >{{ ago(instance.last_seen_at) }}</time
                >
              </td>
              <td class="load" [attr.data-label]="'admin.cluster.column.sensors' | transloco">
                {{ instance.alive ? count(instance.sensors) : '—' }}
              </td>
              <td class="actions">
                @if (instance.gone === 'stopped') {
                  <button
                    type="button"
                    class="button"
                    [disabled]="store.removing() !== undefined"
                    [attr.aria-label]="'admin.cluster.removeNamed' | transloco: { name: instance.name }"
                    (click)="ask(instance.name)"
                  >
                    {{ 'admin.cluster.remove' | transloco }}
                  </button>
                }
              </td>
            </tr>
          }
        </tbody>
      </table>
    } @else if (!store.error()) {
      <p class="status-line">{{ 'common.loading' | transloco }}</p>
    }
    @if (store.error(); as failure) {
      <app-error-alert
        [heading]="'admin.cluster.loadFailed' | transloco"
        [message]="failure.message"
        (retry)="store.refresh()"
      />
    }
    @if (store.removeError(); as message) {
      <app-error-alert
        [heading]="'admin.cluster.removeFailed' | transloco"
        [message]="message"
        [retryable]="false"
      />
    }
    <p class="status-line" role="status" data-testid="cluster-status">{{ status() }}</p>

    <app-confirm-dialog
      headingId="cluster-dialog-heading"
      [heading]="'admin.cluster.dialogHeading' | transloco: { name: asked() ?? '' }"
      [confirmLabel]="'admin.cluster.remove' | transloco"
      [danger]="true"
      (closed)="closed($event)"
    >
      <p>{{ 'admin.cluster.dialogText' | transloco }}</p>
    </app-confirm-dialog>
  `,
  styleUrl: './cluster-section.component.css',
})
export class ClusterSectionComponent {
  protected readonly store = inject(ClusterStore);
  private readonly dialog = viewChild.required(ConfirmDialogComponent);

  protected readonly symbol: Record<InstanceState, string> = { alive: '●', stopped: '■', dead: '✗' };
  protected readonly asked = signal<string | undefined>(undefined);

  protected readonly deadInstances = computed(
    () => this.store.view()?.instances.filter((i) => i.gone === 'dead') ?? [],
  );

  protected readonly mode = computed(() => {
    const view = this.store.view();
    if (!view) return '';
    if (view.mode === 'single') return t('admin.cluster.single');
    return t('admin.cluster.cluster', {
      alive: view.instances.filter((i) => i.alive).length,
      seconds: view.dead_after_s,
    });
  });

  protected readonly status = computed(() => {
    const removed = this.store.removed();
    return removed ? t('admin.cluster.removed', { name: removed }) : '';
  });

  protected state(instance: ClusterInstance): InstanceState {
    return stateOf(instance);
  }

  protected ago(at: string): string {
    return formatTimeAgo(at, this.store.now());
  }

  protected count(value: number): string {
    return formatNumber(value);
  }

  protected ask(name: string): void {
    this.asked.set(name);
    this.dialog().open();
  }

  /** The dialog closed (confirmed, cancelled or Escape): remove if confirmed. */
  protected closed(confirmed: boolean): void {
    const name = this.asked();
    this.asked.set(undefined);
    if (confirmed && name !== undefined) void this.store.remove(name);
  }
}
