import { DatePipe } from '@angular/common';
import {
  ChangeDetectionStrategy,
  Component,
  computed,
  inject,
  input,
  linkedSignal,
  signal,
} from '@angular/core';
import {
  ANNOUNCEMENT_SEVERITIES,
  STATUS_PAGE_LIMITS,
  type AnnouncementSeverity,
  type StatusPageAnnouncement,
} from '@monitor/contracts';
import { TranslocoPipe } from '@jsverse/transloco';

import { t } from '../../core/i18n/i18n';
import { injectFocus, inputValue, whileBusy } from '../../shared/forms/form-helpers';
import { StatusPagesApi } from './status-pages.api';

/**
 * A page's announcements, newest first: operators and administrators add and delete them (they are
 * published at once, apart from the page's own Save); everyone else reads them.
 */
@Component({
  selector: 'app-announcements',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [DatePipe, TranslocoPipe],
  templateUrl: './announcements.component.html',
  styleUrl: './status-pages.css',
})
export class AnnouncementsComponent {
  private readonly api = inject(StatusPagesApi);
  private readonly focus = injectFocus();

  readonly pageId = input.required<number>();
  readonly initial = input.required<readonly StatusPageAnnouncement[]>();
  readonly canWrite = input(false);

  protected readonly severities = ANNOUNCEMENT_SEVERITIES;
  protected readonly limits = STATUS_PAGE_LIMITS;
  protected readonly list = linkedSignal(() => this.initial());
  protected readonly title = signal('');
  protected readonly body = signal('');
  protected readonly severity = signal<AnnouncementSeverity>('info');
  protected readonly busy = signal(false);
  protected readonly failure = signal<string | undefined>(undefined);
  protected readonly confirmDelete = signal<number | undefined>(undefined);
  protected readonly deleteFailure = signal<string | undefined>(undefined);
  private readonly change = signal<{ kind: 'added' | 'deleted'; title: string } | undefined>(undefined);
  protected readonly status = computed(() => {
    const change = this.change();
    return change ? t(`statusPages.announcements.status.${change.kind}`, { title: change.title }) : '';
  });

  protected value(event: Event): string {
    return inputValue(event);
  }

  protected setSeverity(event: Event): void {
    const severity = this.severities.find((option) => option === inputValue(event));
    if (severity) this.severity.set(severity);
  }

  protected async add(event: Event): Promise<void> {
    event.preventDefault();
    if (this.busy()) return;
    const title = this.title().trim();
    this.failure.set(undefined);
    await whileBusy(
      this.busy,
      async () => {
        await this.api.addAnnouncement(this.pageId(), {
          title,
          body: this.body().trim(),
          severity: this.severity(),
        });
        this.title.set('');
        this.body.set('');
        this.severity.set('info');
        this.change.set({ kind: 'added', title });
        await this.refresh();
      },
      (error) => {
        this.failure.set(error.message);
        this.focus('#announcement-error');
      },
    );
  }

  protected askDelete(announcement: StatusPageAnnouncement): void {
    this.deleteFailure.set(undefined);
    this.confirmDelete.set(announcement.id);
    this.focus('#confirm-delete-announcement');
  }

  protected cancelDelete(announcement: StatusPageAnnouncement): void {
    this.confirmDelete.set(undefined);
    this.focus(`[data-delete-announcement="${announcement.id}"]`);
  }

  protected async remove(announcement: StatusPageAnnouncement): Promise<void> {
    if (this.busy()) return;
    this.deleteFailure.set(undefined);
    await whileBusy(
      this.busy,
      async () => {
        await this.api.removeAnnouncement(this.pageId(), announcement.id);
        this.confirmDelete.set(undefined);
        this.change.set({ kind: 'deleted', title: announcement.title });
        await this.refresh();
        this.focus('#announcements-heading');
      },
      (error) => this.deleteFailure.set(error.message),
    );
  }

  /** Reads the page again for its announcements only: the page's own fields may have unsaved edits. */
  private async refresh(): Promise<void> {
    try {
      this.list.set((await this.api.get(this.pageId())).announcements);
    } catch {
      // The change was made; the list catches up with the next visit.
    }
  }
}
