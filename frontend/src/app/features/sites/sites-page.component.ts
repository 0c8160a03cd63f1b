import { ChangeDetectionStrategy, Component, computed, inject, signal } from '@angular/core';
import type { SiteDetail } from '@monitor/contracts';
import { TranslocoPipe } from '@jsverse/transloco';

import { t } from '../../core/i18n/i18n';
import { SessionStore } from '../../core/session/session.store';
import { injectFocus, whileBusy } from '../../shared/forms/form-helpers';
import { ErrorAlertComponent } from '../../shared/ui/error-alert.component';
import { LoadingIndicatorComponent } from '../../shared/ui/loading-indicator.component';
import { MapSettingsFormComponent } from './map-settings-form.component';
import { SiteFormComponent, kindLabel } from './site-form.component';
import { SiteMapComponent } from './site-map.component';
import { SitesStore } from './sites.store';

/** A delete the server refused because the site still has sensors. */
interface DeleteConflict {
  readonly name: string;
  readonly message: string;
  readonly sensors: number;
}

/**
 * `/sites`: where the sensors are. Everyone sees the map and the list; administrators create,
 * rename, move and delete sites and set the map's tiles and borders. Sites declared in the
 * configuration file carry a badge and no controls (the server refuses changes to them).
 */
@Component({
  selector: 'app-sites-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    TranslocoPipe,
    ErrorAlertComponent,
    LoadingIndicatorComponent,
    MapSettingsFormComponent,
    SiteFormComponent,
    SiteMapComponent,
  ],
  providers: [SitesStore],
  templateUrl: './sites-page.component.html',
  styleUrl: './sites-page.component.css',
})
export class SitesPageComponent {
  protected readonly store = inject(SitesStore);
  private readonly session = inject(SessionStore);
  private readonly focus = injectFocus();

  protected readonly isAdmin = this.session.isAdmin;
  protected readonly kindLabel = kindLabel;

  /** The last change, worded where shown so that it follows the language. */
  private readonly change = signal<
    | { readonly kind: 'created' | 'saved' | 'deleted' | 'deletedUnassigned'; readonly name: string }
    | { readonly kind: 'renamed'; readonly name: string; readonly before: string }
    | undefined
  >(undefined);
  protected readonly status = computed(() => {
    const change = this.change();
    if (!change) return '';
    return t(`sites.status.${change.kind}`, { ...change });
  });
  protected readonly editing = signal<string | undefined>(undefined);
  protected readonly confirmDelete = signal<string | undefined>(undefined);
  protected readonly conflict = signal<DeleteConflict | undefined>(undefined);
  protected readonly deleteFailure = signal<string | undefined>(undefined);
  protected readonly deleting = signal(false);

  /** What the map shows, in words (the map's description). */
  protected readonly mapSummary = computed(() => {
    const total = this.store.sites().length;
    const placed = this.store.placed().length;
    if (total === 0) return t('sites.map.empty');
    const unplaced = total - placed;
    return unplaced === 0
      ? t('sites.map.summary', { placed })
      : t('sites.map.summaryUnplaced', { placed, unplaced });
  });

  constructor() {
    void this.store.load();
  }

  protected coordinates(site: SiteDetail): string {
    return site.lat === null || site.lon === null ? t('sites.notOnMap') : `${site.lat}, ${site.lon}`;
  }

  protected sensorCount(count: number): string {
    return t('sites.sensorCount', { count });
  }

  protected created(site: SiteDetail): void {
    this.change.set({ kind: 'created', name: site.name });
  }

  protected startEdit(site: SiteDetail): void {
    this.resetDelete();
    this.editing.set(site.name);
    this.focus('#edit-site-name');
  }

  protected saved(before: string, site: SiteDetail): void {
    this.editing.set(undefined);
    this.change.set(
      before === site.name
        ? { kind: 'saved', name: site.name }
        : { kind: 'renamed', name: site.name, before },
    );
    this.focus(`[data-edit="${CSS.escape(site.name)}"]`);
  }

  protected cancelEdit(site: SiteDetail): void {
    this.editing.set(undefined);
    this.focus(`[data-edit="${CSS.escape(site.name)}"]`);
  }

  protected askDelete(site: SiteDetail): void {
    this.editing.set(undefined);
    this.resetDelete();
    this.confirmDelete.set(site.name);
    this.focus('#confirm-delete-site');
  }

  protected cancelDelete(site: SiteDetail): void {
    this.resetDelete();
    this.focus(`[data-delete="${CSS.escape(site.name)}"]`);
  }

  /** Deletes the site; a 409 (it still has sensors) offers deleting it and leaving them without one. */
  protected async remove(site: SiteDetail, unassign: boolean): Promise<void> {
    if (this.deleting()) return;
    this.deleteFailure.set(undefined);
    await whileBusy(
      this.deleting,
      async () => {
        await this.store.remove(site.name, unassign);
        this.resetDelete();
        this.change.set({ kind: unassign ? 'deletedUnassigned' : 'deleted', name: site.name });
        this.focus('#sites-heading');
      },
      (error) => {
        if (error.status === 409 && !unassign) {
          this.confirmDelete.set(undefined);
          this.conflict.set({ name: site.name, message: error.message, sensors: site.sensor_count });
          this.focus('#confirm-unassign-site');
        } else {
          this.deleteFailure.set(error.message);
        }
      },
    );
  }

  private resetDelete(): void {
    this.confirmDelete.set(undefined);
    this.conflict.set(undefined);
    this.deleteFailure.set(undefined);
  }
}
