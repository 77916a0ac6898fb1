// Recursive descent over the grammar in grammar.md. It checks syntax and the size limits only; what the
// names mean is resolve.ts's business. Recursion happens only for nested combinators and the depth is
// checked before each descent, so no input can take the stack deeper than FILTER_LIMITS.maxDepth frames.
import { AppError } from '../errors.ts';
import {
  FILTER_LIMITS,
  type FilterCombinator,
  type FilterCondition,
  type FilterExpr,
  type FilterScalar,
} from './ast.ts';
import { Scanner, abbreviate, filterParseError } from './lexer.ts';

/** One name in a path: letters and digits in runs joined by single underscores, starting with a letter. */
const NAME = '[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*';
const NAME_PATTERN = new RegExp(`^${NAME}$`);
// NAME never contains "__", so the first "__" is the only place a relation can end.
const PATH_PATTERN = new RegExp(`^(?:(${NAME})__)?(${NAME})$`);

/**
 * Parses a filter expression into its syntax tree. Throws AppError('FILTER_PARSE_ERROR') naming the
 * 0-based position and what was expected there. An empty expression is an error here; callers that treat
 * an empty filter as "no filter" use `parseOptionalFilter`.
 */
export function parseFilter(text: string): FilterExpr {
  if (text.length > FILTER_LIMITS.maxLength) {
    const { maxLength } = FILTER_LIMITS;
    const message = `Invalid filter: it is ${text.length} characters long, at most ${maxLength} are allowed`;
    throw new AppError('FILTER_PARSE_ERROR', message, { details: [{ path: 'filter', message }] });
  }
  return new Parser(text).parseRoot();
}

/**
 * `undefined` for a missing, empty or all-whitespace filter (no filter at all); otherwise `parseFilter`.
 * The length limit still applies first: an oversized filter is refused whatever it holds.
 */
export function parseOptionalFilter(text: string | null | undefined): FilterExpr | undefined {
  if (text == null || (text.length <= FILTER_LIMITS.maxLength && text.trim() === '')) return undefined;
  return parseFilter(text);
}

class Parser {
  private readonly scanner: Scanner;
  private conditionCount = 0;

  constructor(text: string) {
    this.scanner = new Scanner(text);
  }

  parseRoot(): FilterExpr {
    this.scanner.skipWhitespace();
    const expr = this.parseExpr(0);
    const afterExpr = this.scanner.position;
    this.scanner.skipWhitespace();
    if (!this.scanner.atEnd) this.failAfterExpr(afterExpr, 'end of input');
    return expr;
  }

  private parseExpr(depth: number): FilterExpr {
    const { scanner } = this;
    const start = scanner.position;
    const word = scanner.readWord();
    if (word === '') scanner.fail("a condition, 'and(' or 'or('");
    if (word === 'and' || word === 'or') {
      const afterWord = scanner.position;
      scanner.skipWhitespace();
      if (scanner.peek() === '(') return this.parseCombinator(word, start, depth);
      scanner.position = afterWord;
    }
    return this.parseCondition(word, start);
  }

  private parseCombinator(kind: 'and' | 'or', start: number, depth: number): FilterCombinator {
    const { scanner } = this;
    if (depth >= FILTER_LIMITS.maxDepth) {
      throw filterParseError(start, `nesting deeper than ${FILTER_LIMITS.maxDepth} levels`);
    }
    scanner.expect('(');
    const children: FilterExpr[] = [];
    for (;;) {
      scanner.skipWhitespace();
      children.push(this.parseExpr(depth + 1));
      const afterChild = scanner.position;
      scanner.skipWhitespace();
      const next = scanner.peek();
      if (next !== ',' && next !== ')') this.failAfterExpr(afterChild, "',' or ')'");
      scanner.position += 1;
      if (next === ')') return { type: 'combinator', kind, children, position: start };
    }
  }

  private parseCondition(firstWord: string, start: number): FilterCondition {
    const { scanner } = this;
    this.conditionCount += 1;
    if (this.conditionCount > FILTER_LIMITS.maxConditions) {
      throw filterParseError(start, `more than ${FILTER_LIMITS.maxConditions} conditions`);
    }
    let ref: string | undefined;
    let pathWord = firstWord;
    let pathStart = start;
    if (scanner.peek() === '.') {
      if (!NAME_PATTERN.test(firstWord)) {
        throw filterParseError(start, `expected a reference name such as entity but found '${abbreviate(firstWord)}'`);
      }
      ref = firstWord;
      scanner.position += 1;
      pathStart = scanner.position;
      pathWord = scanner.readWord();
    }
    const path = PATH_PATTERN.exec(pathWord);
    if (!path) {
      const expected = 'a field name (letters, digits and single underscores, starting with a letter)';
      if (pathWord === '') return scanner.fail(expected, pathStart);
      throw filterParseError(pathStart, `expected ${expected} but found '${abbreviate(pathWord)}'`);
    }
    const [, relation, field = ''] = path;

    let op = 'eq';
    let opPosition = scanner.position;
    if (scanner.peek() === '[') {
      scanner.position += 1;
      opPosition = scanner.position;
      op = scanner.readWord();
      if (op === '') scanner.fail('an operator such as eq or in_any');
      scanner.expect(']');
    } else if (scanner.peek() !== ':') {
      scanner.fail(ref === undefined ? "'[', ':' or '.'" : "'[' or ':'");
    }
    scanner.expect(':');
    const values = this.parseValues();
    return {
      type: 'condition',
      ...(ref === undefined ? {} : { ref }),
      ...(relation === undefined ? {} : { relation }),
      field,
      op,
      values,
      position: start,
      opPosition,
    };
  }

  private parseValues(): FilterScalar[] {
    const { scanner } = this;
    const values: FilterScalar[] = [];
    for (;;) {
      if (values.length === FILTER_LIMITS.maxListValues) {
        throw filterParseError(scanner.position, `more than ${FILTER_LIMITS.maxListValues} values in one list`);
      }
      // Whitespace around a value is not part of it: `total_funding_usd[gte]: 1000000`, `tags[in_any]:1 | 2`.
      scanner.skipWhitespace();
      const value = scanner.readScalar();
      values.push(value);
      if (value.quoted) scanner.skipWhitespace();
      if (scanner.peek() !== '|') return values;
      scanner.position += 1;
    }
  }

  /** Fails at the cursor after an expression; right behind a value, '|' would also have been fine. */
  private failAfterExpr(exprEnd: number, expected: string): never {
    const { scanner } = this;
    // A combinator ends with ')'; a bare value cannot contain one and a quoted value ends with '"'.
    const afterValue = scanner.text.charAt(exprEnd - 1) !== ')';
    if (scanner.position === exprEnd && afterValue) {
      scanner.fail(expected === 'end of input' ? "'|' or end of input" : `'|', ${expected}`);
    }
    return scanner.fail(expected);
  }
}
