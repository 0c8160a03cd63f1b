import { Injectable } from '@nestjs/common';
import type { StatusPage } from '@monitor/contracts';
import { NotFoundError } from '@monitor/domain';
import { statusPageView } from './status-page.view';
import { StatusPagesRepository } from './status-pages.repository';

/** Status pages: the admin API's reads and writes, and the published page the public side shows. */
@Injectable()
export class StatusPagesService {
  constructor(private readonly repository: StatusPagesRepository) {}

  /** Every page, sorted by slug. */
  async list(): Promise<StatusPage[]> {
    return (await this.repository.list()).map(statusPageView);
  }

  /** One page; 404 when there is none. */
  async get(id: number): Promise<StatusPage> {
    const page = await this.repository.byId(id);
    if (!page) throw new NotFoundError(`no status page with id ${id}`);
    return statusPageView(page);
  }

  /** The published page of that slug; null when unknown or unpublished. */
  async publishedBySlug(slug: string): Promise<StatusPage | null> {
    const page = await this.repository.bySlug(slug);
    return page?.published ? statusPageView(page) : null;
  }
}
