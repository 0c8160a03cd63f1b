import type { StatusPageSection } from '@monitor/contracts';
import { InvalidInputError } from '@monitor/domain';

/** Limits of a status page's fields: the API, the backup and the configuration file share them. */
export const STATUS_PAGE_LIMITS = {
  title: 200,
  text: 2000,
  sections: 50,
  sectionTitle: 200,
  sensorsPerSection: 500,
  announcementTitle: 200,
  announcementBody: 5000,
  /** Pages a backup or the configuration file may hold. */
  pages: 1000,
} as const;

/**
 * Sections as they are stored: titles trimmed, each sensor at most once per section (a sensor
 * may be on several sections). The API's DTO checked the types and limits already.
 */
export function checkSections(sections: StatusPageSection[]): StatusPageSection[] {
  return sections.map((section, index) => {
    const seen = new Set<number>();
    for (const id of section.sensors) {
      if (seen.has(id))
        throw new InvalidInputError(
          `sensor ${id} appears twice in section ${index + 1}${section.title ? ` ("${section.title}")` : ''}`,
        );
      seen.add(id);
    }
    return { title: section.title.trim(), sensors: [...section.sensors] };
  });
}
