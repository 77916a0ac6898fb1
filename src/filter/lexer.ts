// The scanner under the parser. The filter language is context-sensitive at the character level (':' ends
// a field path but is an ordinary character inside a value, so date-times need no quotes), so instead of
// producing a token stream up front the scanner offers one reader per token kind and the parser, which
// knows the context, picks the reader. Every reader is a single forward loop: linear time on any input.
import { AppError } from '../errors.ts';
import type { FilterScalar } from './ast.ts';

const Char = {
  Tab: 9,
  LineFeed: 10,
  CarriageReturn: 13,
  Space: 32,
  Quote: 34,
  ParenOpen: 40,
  ParenClose: 41,
  Comma: 44,
  Backslash: 92,
  Underscore: 95,
  Pipe: 124,
} as const;

const isWhitespace = (code: number): boolean =>
  code === Char.Space || code === Char.Tab || code === Char.LineFeed || code === Char.CarriageReturn;

const isWordChar = (code: number): boolean =>
  (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === Char.Underscore;

/**
 * Characters that end a bare value; everything else (spaces, ':', '.', '-', '+', '[', ...) belongs to it,
 * so `hq_country:United States` needs no quotes. A '"' inside a bare value ends it too: quoting is for
 * whole values.
 */
const endsBareValue = (code: number): boolean =>
  code === Char.Comma ||
  code === Char.ParenOpen ||
  code === Char.ParenClose ||
  code === Char.Pipe ||
  code === Char.Quote;

/**
 * `'x'` for a character, `end of input` past the end. Control characters and unpaired surrogates are
 * shown as JSON escapes (`"\u0000"`), so a message is always printable and valid UTF-8.
 */
export function describeCharAt(text: string, position: number): string {
  const code = text.codePointAt(position);
  if (code === undefined) return 'end of input';
  const char = String.fromCodePoint(code);
  if (char === "'") return `"'"`;
  if (code < 32 || code === 127 || (code >= 0xd800 && code <= 0xdfff)) return JSON.stringify(char);
  return `'${char}'`;
}

/** Names and values are cut short in messages: the filter may be 4096 characters of one word. */
export function abbreviate(text: string): string {
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

export function filterParseError(position: number, problem: string): AppError {
  const message = `Invalid filter at position ${position}: ${problem}`;
  return new AppError('FILTER_PARSE_ERROR', message, { details: [{ path: 'filter', message }] });
}

export class Scanner {
  position = 0;

  constructor(readonly text: string) {}

  get atEnd(): boolean {
    return this.position >= this.text.length;
  }

  /** The character at the cursor, or '' at the end. */
  peek(): string {
    return this.text.charAt(this.position);
  }

  skipWhitespace(): void {
    while (this.position < this.text.length && isWhitespace(this.text.charCodeAt(this.position))) {
      this.position += 1;
    }
  }

  /** Consumes `char` or fails naming it as what was expected. */
  expect(char: string, expected = `'${char}'`): void {
    if (this.peek() !== char) this.fail(expected);
    this.position += 1;
  }

  /** A run of ASCII letters, digits and underscores; '' when there is none. */
  readWord(): string {
    const start = this.position;
    while (this.position < this.text.length && isWordChar(this.text.charCodeAt(this.position))) {
      this.position += 1;
    }
    return this.text.slice(start, this.position);
  }

  readScalar(): FilterScalar {
    return this.peek() === '"' ? this.readQuoted() : this.readBare();
  }

  /** Throws "expected X but found Y" at the cursor (or at `position`). */
  fail(expected: string, position = this.position): never {
    const found = describeCharAt(this.text, position);
    throw filterParseError(position, `expected ${expected} but found ${found}`);
  }

  /** A bare value with surrounding whitespace trimmed (the caller skipped the leading part). */
  private readBare(): FilterScalar {
    const start = this.position;
    let end = start;
    while (this.position < this.text.length && !endsBareValue(this.text.charCodeAt(this.position))) {
      if (!isWhitespace(this.text.charCodeAt(this.position))) end = this.position + 1;
      this.position += 1;
    }
    if (end === start) this.fail('a value', start);
    return { text: this.text.slice(start, end), quoted: false, position: start };
  }

  private readQuoted(): FilterScalar {
    const start = this.position;
    this.position += 1;
    let decoded = '';
    let runStart = this.position;
    for (;;) {
      const code = this.text.charCodeAt(this.position);
      if (Number.isNaN(code)) {
        this.fail(`'"' to close the value opened at position ${start}`);
      }
      if (code === Char.Quote) break;
      if (code === Char.Backslash) {
        decoded += this.text.slice(runStart, this.position);
        const escaped = this.text.charCodeAt(this.position + 1);
        if (escaped !== Char.Quote && escaped !== Char.Backslash) {
          this.fail(`'"' or '\\' after '\\' (the only escapes)`, this.position + 1);
        }
        decoded += String.fromCharCode(escaped);
        this.position += 2;
        runStart = this.position;
        continue;
      }
      this.position += 1;
    }
    decoded += this.text.slice(runStart, this.position);
    this.position += 1;
    return { text: decoded, quoted: true, position: start };
  }
}
