/**
 * JSON that PostgreSQL wrote (a compiled read's records), carried through to the response as text:
 * parsing it into objects only to serialize them again cost about a tenth of a list request's CPU.
 * `stringify` splices the texts into the response; whatever needs the records as objects (`fields=`,
 * CSV export) calls `materialize`. Serialized any other way (`JSON.stringify`), a JsonText is parsed
 * and written as its value, so it is never wrong, only slower.
 */
export class JsonText {
  constructor(readonly text: string) {}

  toJSON(): unknown {
    if (!splicing) return JSON.parse(this.text);
    splicing.push(this.text);
    // A NUL cannot occur in a string of this API's data (refused on input; PostgreSQL cannot store it),
    // so its JSON, `"\u0000"`, marks where a text goes; they come in the order JSON.stringify met them.
    return '\u0000';
  }
}

/** The texts of the JsonTexts met by the JSON.stringify running now (it is synchronous). */
let splicing: string[] | undefined;

const PLACEHOLDER = '"\\u0000"';

export function stringify(value: unknown): string {
  const envelope = ofTextsOnly(value);
  if (envelope !== undefined) return envelope;
  const texts: string[] = [];
  splicing = texts;
  let json: string;
  try {
    json = JSON.stringify(value);
  } finally {
    splicing = undefined;
  }
  if (texts.length === 0) return json;
  const parts = json.split(PLACEHOLDER);
  // Only if some other string were a lone NUL: written the slow way, every text parsed, never wrong.
  if (parts.length !== texts.length + 1) return JSON.stringify(value);
  let spliced = parts[0]!;
  for (let index = 0; index < texts.length; index += 1) spliced += texts[index]! + parts[index + 1]!;
  return spliced;
}

/**
 * An object whose every value is a JsonText (a record's envelope, `{"data": <record>}`), written by
 * joining the texts: no serialization of the rest and no splice. Undefined for anything else.
 */
function ofTextsOnly(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return undefined;
  let json = '';
  for (const key in value) {
    const inner = (value as Record<string, unknown>)[key];
    if (!(inner instanceof JsonText)) return undefined;
    json += `${json ? ',' : '{'}${JSON.stringify(key)}:${inner.text}`;
  }
  return json ? `${json}}` : undefined;
}

/** The value with every JsonText in it parsed: records as objects again. */
export function materialize<T>(value: T): T {
  if (value instanceof JsonText) return JSON.parse(value.text) as T;
  if (Array.isArray(value)) return value.map(materialize) as T;
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, materialize(inner)])) as T;
  }
  return value;
}
