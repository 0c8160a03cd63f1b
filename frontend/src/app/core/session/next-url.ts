/** The pages of signing in; never a place to return to after signing in. */
const AUTH_PAGES = ['/sign-in', '/setup'];

/**
 * The `next` query parameter of `/sign-in` as a safe in-app URL: an absolute path on this origin
 * (not `//host`, not another scheme) that is not itself a sign-in page; `/` otherwise.
 */
export function safeNextUrl(next: string | null | undefined): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.includes('\\')) return '/';
  const path = next.split(/[?#]/, 1)[0];
  if (AUTH_PAGES.some((page) => path === page || path.startsWith(`${page}/`))) return '/';
  return next;
}

/** Whether an in-app URL is one of the sign-in pages. */
export function isAuthPage(url: string): boolean {
  const path = url.split(/[?#]/, 1)[0];
  return AUTH_PAGES.some((page) => path === page || path.startsWith(`${page}/`));
}
