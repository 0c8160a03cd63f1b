import { Injectable, inject } from '@angular/core';
import type {
  AnnouncementInput,
  Sensor,
  StatusPage,
  StatusPageInput,
  StatusPagesResponse,
} from '@monitor/contracts';

import { ApiClient } from '../../core/api/api-client.service';

const pagePath = (id: number) => `/api/status-pages/${id}`;

/**
 * The calls of the status pages screens. Every one rejects with an `ApiCallError` whose message is
 * the server's own `{error}` text where it sent one, for the form that made the call to show.
 */
@Injectable({ providedIn: 'root' })
export class StatusPagesApi {
  private readonly api = inject(ApiClient);

  async list(): Promise<StatusPage[]> {
    return (await this.api.get<StatusPagesResponse>('/api/status-pages')).status_pages;
  }

  get(id: number): Promise<StatusPage> {
    return this.api.get<StatusPage>(pagePath(id));
  }

  create(input: StatusPageInput): Promise<StatusPage> {
    return this.api.post<StatusPage>('/api/status-pages', input);
  }

  update(id: number, input: StatusPageInput): Promise<StatusPage> {
    return this.api.put<StatusPage>(pagePath(id), input);
  }

  remove(id: number): Promise<unknown> {
    return this.api.delete<unknown>(pagePath(id));
  }

  addAnnouncement(id: number, input: AnnouncementInput): Promise<unknown> {
    return this.api.post<unknown>(`${pagePath(id)}/announcements`, input);
  }

  removeAnnouncement(id: number, announcement: number): Promise<unknown> {
    return this.api.delete<unknown>(`${pagePath(id)}/announcements/${announcement}`);
  }

  /** The sensors a page can list (their names and ids). */
  sensors(): Promise<Sensor[]> {
    return this.api.get<Sensor[]>('/api/sensors');
  }
}

/** Where the server renders a page for visitors. */
export function publicPageUrl(slug: string): string {
  return `/status/${encodeURIComponent(slug)}`;
}

/** How many sensors a page lists (a sensor in two sections counts twice: it is shown twice). */
export function sensorCount(page: Pick<StatusPage, 'sections'>): number {
  return page.sections.reduce((total, section) => total + section.sensors.length, 0);
}
