import type { StatusPageSection } from '@monitor/contracts';
import { InvalidInputError } from '@monitor/domain';

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
