import {
  STATUS_PAGE_SLUG_PATTERN,
  type StatusPage,
  type StatusPageHistoryDays,
  type StatusPageInput,
  type StatusPageLanguage,
} from '@monitor/contracts';

/** A section being edited; `key` keeps the DOM (and focus) with it while sections move. */
export interface DraftSection {
  readonly key: number;
  readonly title: string;
  readonly sensors: readonly number[];
}

/** Where a sensor is: its section's index and its index in that section. */
export interface SlotRef {
  readonly section: number;
  readonly index: number;
}

export interface Draft {
  readonly slug: string;
  readonly title: string;
  readonly description: string;
  readonly footer: string;
  readonly published: boolean;
  readonly showUptime: boolean;
  readonly historyDays: StatusPageHistoryDays;
  readonly language: StatusPageLanguage | '';
  readonly sections: readonly DraftSection[];
}

export const SLUG_MAX = 64;

let nextKey = 1;

export function newSection(title = '', sensors: readonly number[] = []): DraftSection {
  return { key: nextKey++, title, sensors };
}

export function emptyDraft(): Draft {
  return {
    slug: '',
    title: '',
    description: '',
    footer: '',
    published: false,
    showUptime: true,
    historyDays: 90,
    language: '',
    sections: [],
  };
}

export function draftOf(page: StatusPage): Draft {
  return {
    slug: page.slug,
    title: page.title,
    description: page.description,
    footer: page.footer,
    published: page.published,
    showUptime: page.show_uptime,
    historyDays: page.history_days,
    language: page.language,
    sections: page.sections.map((section) => newSection(section.title, section.sensors)),
  };
}

/** Every field: PUT with all of them is the draft exactly as shown. */
export function inputOf(draft: Draft): StatusPageInput {
  return {
    slug: draft.slug.trim(),
    title: draft.title.trim(),
    description: draft.description,
    footer: draft.footer,
    published: draft.published,
    show_uptime: draft.showUptime,
    history_days: draft.historyDays,
    language: draft.language,
    sections: draft.sections.map((section) => ({
      title: section.title.trim(),
      sensors: [...section.sensors],
    })),
  };
}

/**
 * A slug for a title: lowercase ASCII letters and digits, everything else one '-'
 * ("Straße & Café" → "strasse-cafe").
 */
export function suggestSlug(title: string): string {
  return title
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/[äöü]/g, (umlaut) => `${umlaut.normalize('NFD')[0]}e`)
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, SLUG_MAX)
    .replace(/-+$/, '');
}

/** What is wrong with a slug, as the key of its message under `statusPages.slug.`, or undefined. */
export function slugProblem(slug: string): 'required' | 'tooLong' | 'pattern' | undefined {
  if (slug === '') return 'required';
  if (slug.length > SLUG_MAX) return 'tooLong';
  return STATUS_PAGE_SLUG_PATTERN.test(slug) ? undefined : 'pattern';
}

/** Moves one element of a list to another index. */
export function moveIn<T>(list: readonly T[], from: number, to: number): T[] {
  const copy = [...list];
  const [moved] = copy.splice(from, 1);
  copy.splice(Math.max(0, Math.min(to, copy.length)), 0, moved);
  return copy;
}

/**
 * Moves a sensor to `to` (in the same or another section). A sensor already in the target section
 * stays where it was: a section lists each sensor once.
 */
export function moveSensor(
  sections: readonly DraftSection[],
  from: SlotRef,
  to: SlotRef,
): readonly DraftSection[] {
  const sensor = sections[from.section]?.sensors[from.index];
  if (sensor === undefined || !sections[to.section]) return sections;
  if (from.section === to.section) {
    return sections.map((section, index) =>
      index === from.section
        ? { ...section, sensors: moveIn(section.sensors, from.index, to.index) }
        : section,
    );
  }
  if (sections[to.section].sensors.includes(sensor)) return sections;
  return sections.map((section, index) => {
    if (index === from.section)
      return { ...section, sensors: section.sensors.filter((_, at) => at !== from.index) };
    if (index !== to.section) return section;
    const sensors = [...section.sensors];
    sensors.splice(Math.max(0, Math.min(to.index, sensors.length)), 0, sensor);
    return { ...section, sensors };
  });
}

/**
 * One step up or down for the keyboard buttons: within the section, and past its edge to the end of
 * the previous section or the start of the next one.
 */
export function stepTarget(
  sections: readonly DraftSection[],
  from: SlotRef,
  step: -1 | 1,
): SlotRef | undefined {
  const length = sections[from.section]?.sensors.length ?? 0;
  const index = from.index + step;
  if (index >= 0 && index < length) return { section: from.section, index };
  const section = from.section + step;
  if (section < 0 || section >= sections.length) return undefined;
  return { section, index: step < 0 ? sections[section].sensors.length : 0 };
}
