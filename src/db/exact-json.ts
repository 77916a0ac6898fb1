import type { Prisma } from './generated/prisma/client.ts';

/**
 * A value for a Json column that is stored exactly as given, whatever keys it holds.
 *
 * Prisma's wire format marks its own typed values with a `$type` key, and escapes a caller's object that
 * has one as `{"$type": "Raw", "value": …}`. Prisma 7's query compiler undoes that escape only at the
 * top of a Json value, so `{"a": [{"$type": "x"}]}` would be stored as
 * `{"a": [{"$type": "Raw", "value": {"$type": "x"}}]}` (prisma/orm#21454, back with the TypeScript
 * engine). Escaping the whole value once, at the top, where the escape is undone, leaves every key
 * inside it alone: Prisma sends what `toJSON` returns without walking it.
 */
export function exactJson(value: Prisma.InputJsonValue): Prisma.InputJsonValue {
  return { toJSON: () => ({ $type: 'Raw', value }) } as unknown as Prisma.InputJsonValue;
}
