/** The lines the push panel offers to copy, built from the push URL. */

/** What stands for the token while it is not known (it is shown only after create or rotate). */
export const MASKED_TOKEN = '••••••••';

export function pushUrl(origin: string, token: string | undefined): string {
  return `${origin.replace(/\/+$/, '')}/api/push/${token ?? MASKED_TOKEN}`;
}

export function curlLine(url: string): string {
  return `curl -fsS -m 10 --retry 3 '${url}'`;
}

/** A crontab line pushing about once an interval: every N minutes, or hourly for an hour or more. */
export function crontabLine(url: string, intervalSeconds: number): string {
  const minutes = Math.max(1, Math.round(intervalSeconds / 60));
  const schedule = minutes >= 60 ? '0 * * * *' : minutes === 1 ? '* * * * *' : `*/${minutes} * * * *`;
  return `${schedule} ${curlLine(url)} >/dev/null`;
}
