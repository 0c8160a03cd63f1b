/** The URL a job calls, when the installation knows its own address (base_url); else undefined. */
export const pushUrl = (baseUrl: string, token: string): string | undefined =>
  baseUrl ? `${baseUrl.replace(/\/+$/, '')}/api/push/${token}` : undefined;
