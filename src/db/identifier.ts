/** A name as a quoted SQL identifier (a schema, a column key chosen by the code, never client text unchecked). */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
