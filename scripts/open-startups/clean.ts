/**
 * Repairs for the damage the open data carries: spreadsheet errors in names (`#NAME?`), amounts that a
 * spreadsheet turned into scientific notation, dates it turned into serial numbers, and text that was
 * decoded as Windows-1252 although it was UTF-8 (`agÃ¡mi` for `agámi`).
 */
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';

export type CsvRow = Record<string, string>;

export function readCsv(path: string): CsvRow[] {
  return parse(readFileSync(path, 'utf8'), { columns: true, skip_empty_lines: true, bom: true, relax_quotes: true }) as CsvRow[];
}

/**
 * Windows-1252's characters for bytes 0x80-0x9F (the rest of the byte range is Latin-1), mapped back to
 * their bytes. Spelled out because Node's TextDecoder treats windows-1252 as plain Latin-1.
 */
const CP1252_BYTES = new Map<string, number>(
  [...'€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008DŽ\u008F\u0090‘’“”•–—˜™š›œ\u009DžŸ'].map((char, index) => [char, 0x80 + index]),
);

const MOJIBAKE = /[ÃÂâÅ][\u0080-\u00bf\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u0192\u02c6\u02dc\u2013-\u2122]/;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Undoes UTF-8 read as Windows-1252, only when the whole string converts back cleanly. */
export function fixMojibake(text: string): string {
  if (!MOJIBAKE.test(text)) return text;
  const bytes: number[] = [];
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    const byte = CP1252_BYTES.get(char) ?? (code < 0x100 ? code : undefined);
    if (byte === undefined) return text;
    bytes.push(byte);
  }
  try {
    return strictUtf8.decode(Uint8Array.from(bytes));
  } catch {
    return text;
  }
}

/** Cleaned text: mojibake repaired, whitespace collapsed, spreadsheet error values dropped. */
export function clean(text: string | undefined): string {
  const value = fixMojibake((text ?? '').replace(/\s+/g, ' ').trim());
  return /^#(NAME\?|VALUE!|REF!|N\/A|DIV\/0!|NUM!|NULL!)$/i.test(value) ? '' : value;
}

/** A name, or one made from the record's slug when the spreadsheet destroyed it. */
export function cleanName(text: string | undefined, slug: string): string {
  return clean(text) || slug.split('-').filter(Boolean).map(capitalise).join(' ');
}

function capitalise(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/**
 * Whole dollars from "1750000", "$3,000,000" or "1200000.0"; null for empty, "undisclosed", scientific
 * notation (a spreadsheet rounded the real figure away) and absurd values of a trillion or more.
 */
export function parseAmount(text: string | undefined): number | null {
  const value = (text ?? '').replace(/[$,\s]/g, '');
  if (!/^\d+(\.\d+)?$/.test(value)) return null;
  const amount = Math.round(Number(value));
  return amount > 0 && amount < 1e12 ? amount : null;
}

const STATED_UNITS: Record<string, number> = {
  billion: 1e9, bln: 1e9, bn: 1e9, b: 1e9,
  million: 1e6, mln: 1e6, mn: 1e6, m: 1e6,
  thousand: 1e3, k: 1e3,
};
/** `$2.5 Billion`, `$120M`, `$1.1 bln`, `$50 mn`, `$3,000,000`; a unit must not run into a word. */
const STATED_AMOUNT = /\$\s?(\d+(?:[.,]\d+)*)(?:\s*(billion|bln|bn|b|million|mln|mn|m|thousand|k)(?![a-z]))?/gi;
/** What makes an amount one end of a range: `$400M-$500M`, `$55-60M`, `$20 – $30 Million`, `$10 to $15M`. */
const RANGE_AFTER = /^\s*(?:[-–—]|to\b)\s*\$?\d/i;

/**
 * The one dollar amount a headline states (`Microsoft Has Acquired Minecraft For $2.5 Billion`), or
 * null when it states none, a range, or several different ones (`The Price is $928m. not $847m.`).
 * A number without a unit counts only when written out in full (`$3,000,000`), not `$2.5`.
 */
export function parseStatedAmount(text: string | undefined): number | null {
  const source = text ?? '';
  const amounts = new Set<number>();
  for (const match of source.matchAll(STATED_AMOUNT)) {
    const [whole, digits = '', unit] = match;
    if (RANGE_AFTER.test(source.slice((match.index ?? 0) + whole.length))) return null;
    const number = Number(digits.replace(/,/g, ''));
    if (!Number.isFinite(number)) continue;
    if (unit) amounts.add(Math.round(number * (STATED_UNITS[unit.toLowerCase()] ?? 1)));
    else if (/^\d{1,3}(,\d{3})+$/.test(digits)) amounts.add(number);
  }
  return amounts.size === 1 ? [...amounts][0]! : null;
}

/** `YYYY-MM-DD` when the text is a real ISO date. */
export function isoDate(text: string | undefined): string | null {
  const value = (text ?? '').trim();
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return null;
  return Number.isNaN(Date.parse(`${value}T00:00:00Z`)) ? null : value;
}

/**
 * `d/mm/yyyy` → `yyyy-mm-dd`. Years before 1950 are spreadsheet serial numbers read as dates (the year
 * "2006" became 28/06/1905), so they and unparsable dates fall back to January 1st of `fallbackYear`.
 */
export function parseDayMonthYear(text: string | undefined, fallbackYear: string | undefined): string | null {
  const match = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec((text ?? '').trim());
  if (match) {
    const [, day, month, year] = match;
    const iso = `${year}-${month?.padStart(2, '0')}-${day?.padStart(2, '0')}`;
    if (Number(year) >= 1950 && isoDate(iso) && new Date(`${iso}T00:00:00Z`).getUTCDate() === Number(day)) return iso;
  }
  const year = Number(fallbackYear);
  return Number.isInteger(year) && year >= 1950 && year <= 2015 ? `${year}-01-01` : null;
}

export function parseYear(text: string | undefined): number | null {
  const year = Number((text ?? '').trim());
  return Number.isInteger(year) && year >= 1800 && year <= 2015 ? year : null;
}

/** Comma-separated list, cleaned and without duplicates. */
export function splitList(text: string | undefined): string[] {
  return [...new Set((text ?? '').split(',').map(clean).filter((item) => item && item.toLowerCase() !== 'none'))];
}

/** `software` → `Software`, `games_video` → `Games & Video`, `ecommerce` → `E-Commerce`. */
export function categoryName(code: string): string {
  const special: Record<string, string> = {
    ecommerce: 'E-Commerce',
    games_video: 'Games & Video',
    photo_video: 'Photo & Video',
    network_hosting: 'Network Hosting',
    cleantech: 'Cleantech',
    biotech: 'Biotech',
    nanotech: 'Nanotech',
  };
  return special[code] ?? code.split('_').map(capitalise).join(' ');
}

/** Host name of a link without `www.`, used as a news source. */
export function hostOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\d*\./, '');
  } catch {
    return '';
  }
}
