/** The escape character of every LIKE pattern built by containsPattern. */
export const LIKE_ESCAPE = '\\';

/**
 * A LIKE pattern matching `text` anywhere, with %, _ and the escape character taken literally.
 * Use it as `column LIKE ? ESCAPE '\'`. SQLite's LIKE folds ASCII letters only, so matching is
 * case-insensitive for A–Z and exact for other letters.
 */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => LIKE_ESCAPE + c)}%`;
}

/** The text a containsPattern pattern looks for, in characters (an emoji is one). */
export const containedLength = (pattern: string): number =>
  Array.from(pattern.slice(1, -1).replace(/\\(.)/gs, '$1')).length;

const ESCAPE = "ESCAPE '\\'";

/** `(a LIKE ? ESCAPE '\' OR b LIKE ? ...)` over the given SQL expressions (one parameter each). */
export const anyLike = (expressions: string[]): string =>
  `(${expressions.map((e) => `${e} LIKE ? ${ESCAPE}`).join(' OR ')})`;

/** `expression LIKE ? ESCAPE '\'`. */
export const like = (expression: string): string => `${expression} LIKE ? ${ESCAPE}`;
