import { DestroyRef, Injectable, computed, inject, signal } from '@angular/core';
import type { DoctorReport, ExampleCounts } from '@monitor/contracts';

import { ApiCallError } from '../../core/api/api-call-error';
import { SessionStore } from '../../core/session/session.store';
import { t } from '../../core/i18n/i18n';
import { AdminApi } from './admin.api';
import type { RestoreResult } from './admin.models';

/** What the last load or removal of the sample data did, with the counts the server sent. */
interface SamplesOutcome {
  readonly done: 'loaded' | 'removed';
  readonly counts: ExampleCounts;
}

/**
 * The data of `/admin`: sample-data counts and their load and removal, restore, and the doctor.
 * Provided by the page. Every refusal is kept as the server wrote it, for the section to show.
 */
@Injectable()
export class AdminStore {
  private readonly api = inject(AdminApi);
  private readonly session = inject(SessionStore);
  private destroyed = false;

  private readonly countsState = signal<ExampleCounts | undefined>(undefined);
  private readonly countsErrorState = signal<ApiCallError | undefined>(undefined);
  private readonly samplesBusyState = signal(false);
  private readonly samplesErrorState = signal<string | undefined>(undefined);
  private readonly samplesStatusState = signal<SamplesOutcome | undefined>(undefined);

  private readonly restoreBusyState = signal(false);
  private readonly restoreResultState = signal<RestoreResult | undefined>(undefined);
  private readonly restoreErrorState = signal<string | undefined>(undefined);

  private readonly doctorBusyState = signal(false);
  private readonly reportState = signal<DoctorReport | undefined>(undefined);
  private readonly doctorErrorState = signal<string | undefined>(undefined);

  readonly counts = this.countsState.asReadonly();
  readonly countsError = this.countsErrorState.asReadonly();
  readonly samplesBusy = this.samplesBusyState.asReadonly();
  readonly samplesError = this.samplesErrorState.asReadonly();
  /** The last load or removal, in the active language. */
  readonly samplesStatus = computed(() => {
    const outcome = this.samplesStatusState();
    if (!outcome) return '';
    const { sensors, results, incidents, sites } = outcome.counts;
    const counts = { sensors, results, incidents, sites };
    return outcome.done === 'loaded' ? t('admin.samples.loaded', counts) : t('admin.samples.removed', counts);
  });

  readonly restoreBusy = this.restoreBusyState.asReadonly();
  readonly restoreResult = this.restoreResultState.asReadonly();
  readonly restoreError = this.restoreErrorState.asReadonly();

  readonly doctorBusy = this.doctorBusyState.asReadonly();
  readonly report = this.reportState.asReadonly();
  readonly doctorError = this.doctorErrorState.asReadonly();

  constructor() {
    inject(DestroyRef).onDestroy(() => (this.destroyed = true));
  }

  /** How much sample data there is now. */
  async loadCounts(): Promise<void> {
    this.countsErrorState.set(undefined);
    try {
      const counts = await this.api.sampleCounts();
      if (!this.destroyed) this.countsState.set(counts);
    } catch (failure: unknown) {
      if (!this.destroyed) this.countsErrorState.set(ApiCallError.from(failure));
    }
  }

  loadSamples(): Promise<void> {
    return this.samples(async () => {
      const counts = await this.api.loadSamples();
      this.countsState.set(counts);
      return { done: 'loaded', counts };
    });
  }

  removeSamples(): Promise<void> {
    return this.samples(async () => {
      const went = await this.api.removeSamples();
      await this.loadCounts();
      return { done: 'removed', counts: went };
    });
  }

  /** Sends a backup file as it is (raw JSON body) and keeps what the server restored. */
  async restore(file: Blob): Promise<boolean> {
    if (this.restoreBusyState()) return false;
    this.restoreBusyState.set(true);
    this.restoreErrorState.set(undefined);
    this.restoreResultState.set(undefined);
    try {
      const result = await this.session.renewing(this.api.restore(file));
      if (this.destroyed) return true;
      this.restoreResultState.set(result);
      this.samplesStatusState.set(undefined);
      this.samplesErrorState.set(undefined);
      void this.loadCounts();
      return true;
    } catch (failure: unknown) {
      if (!this.destroyed) this.restoreErrorState.set(ApiCallError.from(failure).message);
      return false;
    } finally {
      this.restoreBusyState.set(false);
    }
  }

  async runDoctor(): Promise<void> {
    if (this.doctorBusyState()) return;
    this.doctorBusyState.set(true);
    this.doctorErrorState.set(undefined);
    try {
      const report = await this.api.runDoctor();
      if (!this.destroyed) this.reportState.set(report);
    } catch (failure: unknown) {
      if (!this.destroyed) this.doctorErrorState.set(ApiCallError.from(failure).message);
    } finally {
      this.doctorBusyState.set(false);
    }
  }

  private async samples(call: () => Promise<SamplesOutcome>): Promise<void> {
    if (this.samplesBusyState()) return;
    this.samplesBusyState.set(true);
    this.samplesErrorState.set(undefined);
    this.samplesStatusState.set(undefined);
    try {
      const status = await call();
      if (!this.destroyed) this.samplesStatusState.set(status);
    } catch (failure: unknown) {
      if (!this.destroyed) this.samplesErrorState.set(ApiCallError.from(failure).message);
    } finally {
      this.samplesBusyState.set(false);
    }
  }
}
