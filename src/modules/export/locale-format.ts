import type { Labels } from './labels/labels.ts';

/** Numbers and dates written for a language (`1.234,56` in Spanish, `1,234.56` in English). */
export interface LocaleFormat {
  /** An amount with exactly the currency's decimals and its symbol (`1.234,56 €`). */
  money(value: number): string;
  /** An amount with exactly the currency's decimals, no symbol. */
  amount(value: number): string;
  /** A quantity or rate: up to `maxDecimals` decimals, no trailing zeros. */
  number(value: number, maxDecimals?: number): string;
  /** A rate with a percent sign (`21 %`). */
  percent(value: number): string;
  /** A `YYYY-MM-DD` date in the language's order (`31/12/2026`). */
  date(value: string): string;
}

/**
 * Formatters for one language and currency. Grouping is `always`: Spanish would otherwise leave
 * four-digit amounts ungrouped (`1234,56`), which invoices do not.
 */
export function localeFormat(labels: Pick<Labels, 'locale'>, currency: { code: string; decimals: number }): LocaleFormat {
  const fixed = new Intl.NumberFormat(labels.locale, { minimumFractionDigits: currency.decimals, maximumFractionDigits: currency.decimals, useGrouping: 'always' });
  const money = new Intl.NumberFormat(labels.locale, {
    style: 'currency', currency: currency.code, minimumFractionDigits: currency.decimals, maximumFractionDigits: currency.decimals, useGrouping: 'always',
  });
  const free = new Map<number, Intl.NumberFormat>();
  const number = (value: number, maxDecimals = 6) => {
    let format = free.get(maxDecimals);
    if (!format) free.set(maxDecimals, (format = new Intl.NumberFormat(labels.locale, { maximumFractionDigits: maxDecimals, useGrouping: 'always' })));
    return format.format(value);
  };
  const dates = new Intl.DateTimeFormat(labels.locale, { timeZone: 'UTC', day: '2-digit', month: '2-digit', year: 'numeric' });
  return {
    money: (value) => money.format(value),
    amount: (value) => fixed.format(value),
    number,
    percent: (value) => `${number(value, 4)} %`,
    date: (value) => {
      const [year, month, day] = value.slice(0, 10).split('-').map(Number);
      return year && month && day ? dates.format(new Date(Date.UTC(year, month - 1, day))) : value;
    },
  };
}
