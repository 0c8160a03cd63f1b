import {
  ChangeDetectionStrategy,
  Component,
  computed,
  effect,
  inject,
  input,
  signal,
  untracked,
} from '@angular/core';
import { Router, RouterLink } from '@angular/router';
import {
  STATUS_PAGE_HISTORY_DAYS,
  STATUS_PAGE_LANGUAGES,
  STATUS_PAGE_LIMITS,
  type StatusPage,
  type StatusPageHistoryDays,
  type StatusPageLanguage,
} from '@monitor/contracts';
import { TranslocoPipe } from '@jsverse/transloco';

import { ApiCallError } from '../../core/api/api-call-error';
import { loadable } from '../../core/api/loadable';
import { t } from '../../core/i18n/i18n';
import { hasRole } from '../../core/session/roles';
import { SessionStore } from '../../core/session/session.store';
import { injectFocus, inputValue } from '../../shared/forms/form-helpers';
import { ErrorAlertComponent } from '../../shared/ui/error-alert.component';
import { LoadingIndicatorComponent } from '../../shared/ui/loading-indicator.component';
import { AnnouncementsComponent } from './announcements.component';
import { SectionsEditorComponent } from './sections-editor.component';
import {
  type Draft,
  SLUG_MAX,
  draftOf,
  emptyDraft,
  inputOf,
  slugProblem,
  suggestSlug,
} from './status-page.draft';
import { StatusPagesApi, publicPageUrl } from './status-pages.api';

/** The page just created here, so its editor (a new instance after the navigation) says so once. */
let justCreated: number | undefined;

/**
 * `/status-pages/new` and `/status-pages/:id`: one page's settings, sections and announcements.
 * Administrators edit (except pages from the configuration file); everyone else reads, and
 * operators also add and delete announcements.
 */
@Component({
  selector: 'app-status-page-editor',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    RouterLink,
    TranslocoPipe,
    AnnouncementsComponent,
    ErrorAlertComponent,
    LoadingIndicatorComponent,
    SectionsEditorComponent,
  ],
  templateUrl: './status-page-editor.component.html',
  styleUrl: './status-pages.css',
})
export class StatusPageEditorComponent {
  private readonly api = inject(StatusPagesApi);
  protected readonly session = inject(SessionStore);
  private readonly router = inject(Router);
  private readonly focus = injectFocus();

  /** The route's `:id`; absent on `/status-pages/new`. */
  readonly id = input<string>();

  protected readonly languages = STATUS_PAGE_LANGUAGES;
  protected readonly historyDays = STATUS_PAGE_HISTORY_DAYS;
  protected readonly slugMax = SLUG_MAX;
  protected readonly limits = STATUS_PAGE_LIMITS;
  protected readonly publicUrl = publicPageUrl;

  protected readonly sensors = loadable(() => this.api.sensors());
  protected readonly page = signal<StatusPage | undefined>(undefined);
  protected readonly loadError = signal<ApiCallError | undefined>(undefined);
  protected readonly draft = signal<Draft>(emptyDraft());
  /** Until the slug is typed in, a new page's slug follows its title. */
  private readonly slugTyped = signal(false);
  protected readonly slugTouched = signal(false);
  protected readonly saving = signal(false);
  protected readonly failure = signal<string | undefined>(undefined);
  private readonly saved = signal<'created' | 'saved' | undefined>(undefined);
  protected readonly status = computed(() => {
    const saved = this.saved();
    return saved ? t(`statusPages.status.${saved}`, { title: this.draft().title }) : '';
  });

  protected readonly isNew = computed(() => this.id() === undefined);
  protected readonly readOnly = computed(() => !this.session.isAdmin() || !!this.page()?.managed_by);
  protected readonly canAnnounce = computed(() => hasRole(this.session.role(), 'operator'));
  protected readonly slugError = computed(() => {
    const problem = slugProblem(this.draft().slug.trim());
    if (!problem || (problem === 'required' && !this.slugTouched())) return undefined;
    return t(`statusPages.slug.${problem}`, { max: SLUG_MAX });
  });
  protected readonly heading = computed(() =>
    this.isNew() ? t('statusPages.newHeading') : (this.page()?.title ?? t('statusPages.heading')),
  );

  constructor() {
    effect(() => {
      const id = this.id();
      untracked(() => void this.load(id));
    });
  }

  protected edit<K extends keyof Draft>(key: K, value: Draft[K]): void {
    this.draft.update((draft) => ({ ...draft, [key]: value }));
    this.saved.set(undefined);
  }

  protected text(event: Event): string {
    return inputValue(event);
  }

  protected checked(event: Event): boolean {
    return (event.target as HTMLInputElement).checked;
  }

  protected setTitle(event: Event): void {
    const title = inputValue(event);
    this.edit('title', title);
    if (this.isNew() && !this.slugTyped()) this.edit('slug', suggestSlug(title));
  }

  protected setSlug(event: Event): void {
    this.slugTyped.set(true);
    this.slugTouched.set(true);
    this.edit('slug', inputValue(event));
  }

  protected setHistory(event: Event): void {
    const days = this.historyDays.find((option) => String(option) === inputValue(event));
    if (days) this.edit('historyDays', days satisfies StatusPageHistoryDays);
  }

  protected setLanguage(event: Event): void {
    const value = inputValue(event);
    const language = this.languages.find((option) => option === value);
    this.edit('language', (language ?? '') satisfies StatusPageLanguage | '');
  }

  protected languageName(language: StatusPageLanguage): string {
    return t(`statusPages.language.${language}`);
  }

  protected async save(event: Event): Promise<void> {
    event.preventDefault();
    if (this.saving() || this.readOnly()) return;
    this.slugTouched.set(true);
    if (this.slugError()) {
      this.focus('#page-slug');
      return;
    }
    this.saving.set(true);
    this.failure.set(undefined);
    const page = this.page();
    try {
      const input = inputOf(this.draft());
      const result = page ? await this.api.update(page.id, input) : await this.api.create(input);
      if (!page) {
        justCreated = result.id;
        await this.router.navigate(['/status-pages', result.id]);
        return;
      }
      this.show(result);
      this.saved.set('saved');
    } catch (failure: unknown) {
      this.failure.set(ApiCallError.from(failure).message);
      this.focus('#page-error');
    } finally {
      this.saving.set(false);
    }
  }

  protected reload(): void {
    void this.load(this.id());
  }

  private async load(id: string | undefined): Promise<void> {
    this.loadError.set(undefined);
    if (id === undefined) return;
    try {
      const page = await this.api.get(Number(id));
      if (id !== this.id()) return;
      this.show(page);
      if (justCreated === page.id) this.saved.set('created');
      justCreated = undefined;
    } catch (failure: unknown) {
      if (id === this.id()) this.loadError.set(ApiCallError.from(failure));
    }
  }

  private show(page: StatusPage): void {
    this.page.set(page);
    this.draft.set(draftOf(page));
    this.slugTyped.set(true);
  }
}
