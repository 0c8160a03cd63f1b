import { Injectable } from '@angular/core';
import type { TranslocoTranspiler, TranspileParams } from '@jsverse/transloco';
import { IntlMessageFormat } from 'intl-messageformat';

import { DEFAULT_LANGUAGE } from './languages';

/**
 * Formats catalogue texts as ICU MessageFormat (`{count, plural, one {# sensor} other {# sensors}}`,
 * `{name}`) with FormatJS, which interprets messages instead of compiling them to functions, so the
 * dashboard's content security policy needs no `unsafe-eval`. Formats are kept per language.
 */
@Injectable()
export class IcuTranspiler implements TranslocoTranspiler {
  private lang: string = DEFAULT_LANGUAGE;
  private formats = new Map<string, IntlMessageFormat>();

  transpile({ value, params }: TranspileParams): unknown {
    if (typeof value !== 'string' || !value.includes('{')) return value;
    let format = this.formats.get(value);
    if (!format) {
      format = new IntlMessageFormat(value, this.lang);
      this.formats.set(value, format);
    }
    return format.format(params as Record<string, string | number> | undefined);
  }

  onLangChanged(lang: string): void {
    this.lang = lang;
    this.formats = new Map();
  }
}
