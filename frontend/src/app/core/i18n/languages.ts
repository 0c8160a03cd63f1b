/** The languages the dashboard ships, each named in itself for the language choice. */
export const LANGUAGES = [
  { tag: 'en', name: 'English' },
  { tag: 'de', name: 'Deutsch' },
] as const;

export type LanguageTag = (typeof LANGUAGES)[number]['tag'];

export const DEFAULT_LANGUAGE: LanguageTag = 'en';

/** The shipped language a tag such as `de-CH` or `EN` asks for, if any. */
export function shippedLanguage(tag: string | null | undefined): LanguageTag | undefined {
  const primary = (tag ?? '').toLowerCase().split('-', 1)[0];
  return LANGUAGES.find((language) => language.tag === primary)?.tag;
}

/** The first shipped language among the browser's preferred ones, else English. */
export function browserLanguage(preferred: readonly string[]): LanguageTag {
  for (const tag of preferred) {
    const shipped = shippedLanguage(tag);
    if (shipped) return shipped;
  }
  return DEFAULT_LANGUAGE;
}
