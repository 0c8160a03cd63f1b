import { ChangeDetectionStrategy, Component, inject } from '@angular/core';
import { TranslocoPipe } from '@jsverse/transloco';

import { SessionStore } from '../../core/session/session.store';
import { AdminStore } from './admin.store';
import { BackupSectionComponent } from './backup-section.component';
import { ClusterSectionComponent } from './cluster-section.component';
import { DoctorSectionComponent } from './doctor-section.component';
import { RestoreSectionComponent } from './restore-section.component';
import { SampleDataSectionComponent } from './sample-data-section.component';

/**
 * `/admin`, for operators and administrators (viewers neither see the entry nor reach the page).
 * Administrators: the instances sharing the database, backup, restore, sample data and the doctor. Operators: the doctor, and the
 * sample-data counts without the buttons; backup and restore are not shown to them (both need an
 * administrator, and a backup holds every secret).
 */
@Component({
  selector: 'app-admin-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    BackupSectionComponent,
    ClusterSectionComponent,
    DoctorSectionComponent,
    RestoreSectionComponent,
    SampleDataSectionComponent,
    TranslocoPipe,
  ],
  providers: [AdminStore],
  template: `
    <div class="page-heading">
      <h1>{{ 'admin.title' | transloco }}</h1>
    </div>

    @if (isAdmin()) {
      <section class="panel" aria-labelledby="cluster-heading" data-testid="cluster-section">
        <h2 id="cluster-heading">{{ 'admin.cluster.heading' | transloco }}</h2>
        <app-cluster-section />
      </section>
      <section class="panel" aria-labelledby="backup-heading" data-testid="backup-section">
        <h2 id="backup-heading">{{ 'admin.backup.heading' | transloco }}</h2>
        <app-backup-section />
      </section>
      <section class="panel" aria-labelledby="restore-heading" data-testid="restore-section">
        <h2 id="restore-heading">{{ 'admin.restore.heading' | transloco }}</h2>
        <app-restore-section />
      </section>
    } @else {
      <p class="notice">{{ 'admin.needsAdmin' | transloco }}</p>
    }

    <section class="panel" aria-labelledby="samples-heading" data-testid="sample-section">
      <h2 id="samples-heading">{{ 'admin.samples.heading' | transloco }}</h2>
      <app-sample-data-section [canChange]="isAdmin()" />
    </section>

    <section class="panel" aria-labelledby="doctor-heading" data-testid="doctor-section">
      <h2 id="doctor-heading">{{ 'admin.doctor.heading' | transloco }}</h2>
      <app-doctor-section />
    </section>
  `,
  styles: `
    section,
    .notice {
      display: grid;
      grid-template-columns: minmax(0, 1fr);
      gap: 0.9rem;
      margin-block-end: 1.25rem;
    }
  `,
})
export class AdminPageComponent {
  private readonly store = inject(AdminStore);
  protected readonly isAdmin = inject(SessionStore).isAdmin;

  constructor() {
    void this.store.loadCounts();
  }
}
