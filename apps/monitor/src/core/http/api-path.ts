/** Whether a request path (with or without its query) is under /api. */
export const isApiPath = (url: string): boolean =>
  url === '/api' || url.startsWith('/api/') || url.startsWith('/api?');
