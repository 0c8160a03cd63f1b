import { ChangeDetectionStrategy, Component, computed, inject, signal } from '@angular/core';
import { RouterLink } from '@angular/router';
import type { StatusPage } from '@monitor/contracts';
import { TranslocoPipe } from '@jsverse/transloco';

import { loadable } from '../../core/api/loadable';
import { t } from '../../core/i18n/i18n';
import { SessionStore } from '../../core/session/session.store';
import { injectFocus, whileBusy } from '../../shared/forms/form-helpers';
import { ErrorAlertComponent } from '../../shared/ui/error-alert.component';
import { LoadingIndicatorComponent } from '../../shared/ui/loading-indicator.component';
import { StatusPagesApi, publicPageUrl, sensorCount } from './status-pages.api';

/**
 * `/status-pages`: the public status pages. Everyone signed in sees the list; administrators add,
 * edit and delete pages (pages from the configuration file carry a badge and no delete).
 */
@Component({
  selector: 'app-status-pages-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [RouterLink, TranslocoPipe, ErrorAlertComponent, LoadingIndicatorComponent],
  templateUrl: './status-pages-page.component.html',
  styleUrl: './status-pages.css',
})
export class StatusPagesPageComponent {
  private readonly api = inject(StatusPagesApi);
  private readonly session = inject(SessionStore);
  private readonly focus = injectFocus();

  protected readonly isAdmin = this.session.isAdmin;
  protected readonly pages = loadable(() => this.api.list());
  protected readonly publicUrl = publicPageUrl;

  protected readonly confirmDelete = signal<number | undefined>(undefined);
  protected readonly deleteFailure = signal<string | undefined>(undefined);
  protected readonly deleting = signal(false);
  private readonly deleted = signal<string | undefined>(undefined);
  protected readonly status = computed(() => {
    const title = this.deleted();
    return title === undefined ? '' : t('statusPages.status.deleted', { title });
  });

  protected sensors(page: StatusPage): string {
    return t('statusPages.sensorCount', { count: sensorCount(page) });
  }

  protected askDelete(page: StatusPage): void {
    this.deleteFailure.set(undefined);
    this.confirmDelete.set(page.id);
    this.focus('#confirm-delete-page');
  }

  protected cancelDelete(page: StatusPage): void {
    this.confirmDelete.set(undefined);
    this.deleteFailure.set(undefined);
    this.focus(`[data-delete="${page.id}"]`);
  }

  protected async remove(page: StatusPage): Promise<void> {
    if (this.deleting()) return;
    this.deleteFailure.set(undefined);
    await whileBusy(
      this.deleting,
      async () => {
        await this.api.remove(page.id);
        this.confirmDelete.set(undefined);
        this.deleted.set(page.title);
        this.pages.reload();
        this.focus('#status-pages-heading');
      },
      (error) => this.deleteFailure.set(error.message),
    );
  }
}
