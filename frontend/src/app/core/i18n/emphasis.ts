import { t } from './i18n';

/** A character no catalogue text contains. */
const MARK = '\u2063';

/**
 * A translated sentence split around one of its values, for templates that show that value
 * emphasised (`Showing <strong>12</strong> of 40`): the sentence stays one message, and each
 * language decides where the value goes.
 */
export function around(
  key: string,
  name: string,
  params: Record<string, unknown> = {},
): { before: string; after: string } {
  const [before = '', after = ''] = t(key, { ...params, [name]: MARK }).split(MARK);
  return { before, after };
}
