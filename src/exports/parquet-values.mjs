// A column's values as a Parquet page holds them (src/exports/parquet-column.mjs): the JSON value
// converted to the column's physical type, ordered as Parquet's statistics order it, and written PLAIN
// or as RLE/bit-packed levels. Plain JavaScript, as the thread that runs it (parquet-worker.mjs says why).
import { writeRleBitPackedHybrid } from 'hyparquet-writer/src/encoding.js';

const DAY_MS = 86_400_000;

/** The JSON value of a leaf as the column stores it, by its Parquet type: times in ms, dates in days. */
export function physical(element, value) {
  switch (element.converted_type) {
    case 'TIMESTAMP_MILLIS':
      return checked(Date.parse(value), value, element);
    case 'DATE':
      return checked(Date.parse(value) / DAY_MS, value, element);
  }
  switch (element.type) {
    case 'INT64':
      return checked(value, value, element);
    case 'DOUBLE':
      if (typeof value !== 'number') throw new TypeError(`${element.name}: expected a number, got ${JSON.stringify(value)}`);
      return value;
    case 'BYTE_ARRAY':
      if (typeof value !== 'string') throw new TypeError(`${element.name}: expected a string, got ${JSON.stringify(value)}`);
      return value;
    default:
      if (typeof value !== 'boolean') throw new TypeError(`${element.name}: expected a boolean, got ${JSON.stringify(value)}`);
      return value;
  }
}

function checked(number, value, element) {
  if (!Number.isSafeInteger(number)) throw new TypeError(`${element.name}: not a ${element.converted_type ?? 'integer'}: ${JSON.stringify(value)}`);
  return number;
}

/** Code point order (UTF-8's byte order, Parquet's for strings): a surrogate ranks above the rest of the BMP. */
const rank = (code) => (code >= 0xd800 && code <= 0xdfff ? code + 0x2000 : code >= 0xe000 ? code - 0x800 : code);
export function compare(a, b) {
  if (typeof a !== 'string') return a < b ? -1 : a > b ? 1 : 0;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return rank(x) - rank(y);
  }
  return a.length - b.length;
}

export const byteLength = (element, value) => (element.type === 'BYTE_ARRAY' ? 4 + value.length : element.type === 'INT32' ? 4 : 8);

/**
 * PLAIN values as bytes, made as each value is added (little-endian numbers, length-prefixed UTF-8),
 * in one buffer kept from page to page: a page holds its values as bytes, not as the records' strings
 * and numbers, which would outlive the young generation's collections until their page was written.
 */
export class PlainBytes {
  bytes = Buffer.allocUnsafeSlow(1 << 16);
  length = 0;

  add(element, value) {
    const room = element.type === 'BYTE_ARRAY' ? 4 + 3 * value.length : 8;
    if (this.length + room > this.bytes.length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(2 * this.bytes.length, this.length + room));
      this.bytes.copy(grown, 0, 0, this.length);
      this.bytes = grown;
    }
    const bytes = this.bytes;
    const at = this.length;
    if (element.type === 'BYTE_ARRAY') {
      const length = bytes.write(value, at + 4);
      bytes.writeUInt32LE(length, at);
      this.length = at + 4 + length;
    } else if (element.type === 'INT32') {
      this.length = bytes.writeInt32LE(value, at);
    } else if (element.type === 'DOUBLE') {
      this.length = bytes.writeDoubleLE(value, at);
    } else {
      const high = Math.floor(value / 0x1_0000_0000);
      bytes.writeUInt32LE(value - high * 0x1_0000_0000, at);
      this.length = bytes.writeInt32LE(high, at + 4);
    }
  }

  /** The bytes so far: a view, valid until the next add. */
  get view() {
    return this.bytes.subarray(0, this.length);
  }

  clear() {
    this.length = 0;
  }
}

/** `array`, or a copy of it twice as long (or `needed` long) when it holds fewer than `needed`: levels and indexes kept from page to page. */
export const withRoom = (array, needed) => {
  if (needed <= array.length) return array;
  const grown = new array.constructor(Math.max(2 * array.length, needed));
  grown.set(array);
  return grown;
};

export const bitWidth = (max) => Math.max(1, Math.ceil(Math.log2(max + 1)));

/** Levels (or a boolean's bits) as a v1 page holds them: their byte length, then the RLE/bit-packed runs. */
export function levels(out, values, max) {
  const at = out.index;
  out.appendUint32(0);
  const length = writeRleBitPackedHybrid(out, values, bitWidth(max));
  out.view.setUint32(at, length, true);
}
