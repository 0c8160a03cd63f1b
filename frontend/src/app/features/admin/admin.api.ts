import { Injectable, inject } from '@angular/core';
import type { ClusterView, DoctorReport, ExampleCounts } from '@monitor/contracts';

import { ApiClient } from '../../core/api/api-client.service';
import type { RestoreResult } from './admin.models';

/** The calls of the administration page (administrators): sample data, restore, doctor and cluster. */
@Injectable({ providedIn: 'root' })
export class AdminApi {
  private readonly api = inject(ApiClient);

  /** How much sample data there is now. */
  sampleCounts(): Promise<ExampleCounts> {
    return this.api.get<ExampleCounts>('/api/examples');
  }

  /** Loads the sample data and answers the counts after it (the status page's empty state uses it too). */
  loadSamples(): Promise<ExampleCounts> {
    return this.api.post<ExampleCounts>('/api/examples');
  }

  /** Removes the sample data and answers what went. */
  removeSamples(): Promise<ExampleCounts> {
    return this.api.delete<ExampleCounts>('/api/examples');
  }

  /** Sends a backup file as it is (raw JSON body). */
  restore(file: Blob): Promise<RestoreResult> {
    // A Blob body is sent byte for byte; its type becomes the Content-Type header.
    const body = new Blob([file], { type: 'application/json' });
    return this.api.post<RestoreResult>('/api/restore', body);
  }

  runDoctor(): Promise<DoctorReport> {
    return this.api.post<DoctorReport>('/api/doctor');
  }

  /** The instances sharing the database. */
  cluster(): Promise<ClusterView> {
    return this.api.get<ClusterView>('/api/cluster');
  }

  /** Removes a stopped or dead instance from the list. */
  removeInstance(name: string): Promise<void> {
    return this.api.delete<void>(`/api/cluster/instances/${encodeURIComponent(name)}`);
  }
}
