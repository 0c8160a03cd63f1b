import { activeLanguage } from './i18n';

const formats = new Map<string, Intl.NumberFormat>();

/**
 * The `Intl.NumberFormat` of a language and options, made once: making one costs far more than
 * using it, and cards and charts format on every live result and pointer move.
 */
export function numberFormat(language: string, options: Intl.NumberFormatOptions): Intl.NumberFormat {
  const key = `${language} ${JSON.stringify(options)}`;
  let format = formats.get(key);
  if (!format) {
    format = new Intl.NumberFormat(language, options);
    formats.set(key, format);
  }
  return format;
}

/**
 * Numbers in the active language's notation (`99.95` in English, `99,95` in German). Reading
 * `activeLanguage` makes a `computed` that formats re-evaluate when the language changes.
 */
export function formatNumber(value: number, maximumFractionDigits = 0): string {
  return numberFormat(activeLanguage(), { maximumFractionDigits }).format(value);
}

/** A percentage given as 0–100 ("99.95 %" or "99,95 %"), with at most `digits` decimals. */
export function formatPercent(percent: number, digits = 2): string {
  return numberFormat(activeLanguage(), { style: 'percent', maximumFractionDigits: digits }).format(
    percent / 100,
  );
}

/** A latency in milliseconds ("123 ms"). */
export function formatMs(milliseconds: number, maximumFractionDigits = 0): string {
  return numberFormat(activeLanguage(), {
    style: 'unit',
    unit: 'millisecond',
    unitDisplay: 'short',
    maximumFractionDigits,
  }).format(milliseconds);
}
