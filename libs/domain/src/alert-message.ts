import { renderTemplate } from './template';

export type AlertMessageKind = 'down' | 'up' | 'reminder' | 'test';

/** What an alert is about, in the terms message templates use. */
export interface AlertContext {
  kind: AlertMessageKind;
  /** When the alert was produced (ms). */
  at: number;
  sensor: {
    name: string;
    type: string;
    target: string;
    group: string;
    tags: string[];
    status: string;
  } | null;
  result: { message: string; latency_ms: number | null; status_code: number | null } | null;
  /** Start of the outage (ms), for down, reminder and up. */
  downSince: number | null;
  downForMs: number;
  /** Dashboard link; empty without base_url. */
  url: string;
}

/** "2h 5m", "45s": the largest two units. */
export function humanDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  const units: [string, number][] = [
    ['d', 86400],
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ];
  const parts: string[] = [];
  let rest = seconds;
  for (const [unit, size] of units) {
    if (rest >= size || (unit === 's' && parts.length === 0)) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
    if (parts.length === 2) break;
  }
  return parts.join(' ');
}

/** The variables of the specification's template table. */
export function templateData(ctx: AlertContext): Record<string, unknown> {
  return {
    Name: ctx.sensor?.name ?? '',
    Type: ctx.sensor?.type ?? '',
    Target: ctx.sensor?.target ?? '',
    Group: ctx.sensor?.group ?? '',
    Tags: ctx.sensor?.tags ?? [],
    Status: ctx.sensor?.status ?? '',
    Message: ctx.result?.message ?? '',
    LatencyMS: ctx.result?.latency_ms ?? 0,
    StatusCode: ctx.result?.status_code ?? 0,
    DownSince: ctx.downSince === null ? '' : new Date(ctx.downSince).toISOString(),
    DownFor: ctx.downSince === null ? '' : humanDuration(ctx.downForMs),
    Time: new Date(ctx.at).toISOString(),
    URL: ctx.url,
    Event: ctx.kind,
  };
}

/** The built-in wording, different for each kind of alert. */
export function builtInWording(ctx: AlertContext): { title: string; message: string } {
  const name = ctx.sensor?.name ?? 'Monitor';
  const detail = ctx.result?.message ? `: ${ctx.result.message}` : '';
  const since = ctx.downSince === null ? '' : new Date(ctx.downSince).toISOString();
  switch (ctx.kind) {
    case 'down':
      return { title: `${name} is down`, message: `${name} (${ctx.sensor?.target ?? ''}) is down${detail}` };
    case 'up':
      return {
        title: `${name} is up`,
        message: `${name} is up again after ${humanDuration(ctx.downForMs)} down${since ? ` (since ${since})` : ''}`,
      };
    case 'reminder':
      return {
        title: `${name} is still down`,
        message: `${name} has been down for ${humanDuration(ctx.downForMs)}${since ? ` (since ${since})` : ''}${detail}`,
      };
    case 'test':
      return {
        title: 'Test alert from Monitor',
        message: 'This is a test message: the channel is set up correctly.',
      };
  }
}

/**
 * Title and message of an alert: each template is rendered against the event, and one that is
 * empty, fails to parse or fails to execute falls back to the built-in wording for that kind.
 */
export function renderAlert(
  ctx: AlertContext,
  titleTemplate: string,
  bodyTemplate: string,
): { title: string; message: string } {
  const builtIn = builtInWording(ctx);
  const data = templateData(ctx);
  const render = (template: string, fallback: string): string => {
    if (!template.trim()) return fallback;
    const rendered = renderTemplate(template, data);
    return rendered.ok ? rendered.text : fallback;
  };
  return { title: render(titleTemplate, builtIn.title), message: render(bodyTemplate, builtIn.message) };
}
