/**
 * The SQL text and arguments Prisma sends, for code that needs to ask PostgreSQL about a statement
 * Prisma wrote (the planner's row estimate behind an estimated total, see count.ts). The PostgreSQL
 * adapter reports every statement here as it names it; on the embedded database nothing is captured.
 *
 * Prisma's engine does not carry the caller's async context down to the adapter, so the statement is
 * recognised by a marker instead: a condition `id <> -n` (always true: ids are positive) whose
 * argument `-n` is unique to the capture.
 */
export interface CapturedStatement {
  readonly sql: string;
  readonly args: readonly unknown[];
}

const waiting = new Map<number, (statement: CapturedStatement) => void>();
let lastMarker = 0;

/** Called by the database client for each statement it sends. */
export function recordStatement(statement: CapturedStatement): void {
  if (waiting.size === 0) return;
  for (const arg of statement.args) {
    const deliver = typeof arg === 'number' && arg < 0 ? waiting.get(arg) : undefined;
    if (deliver) return deliver(statement);
  }
}

/**
 * Runs `work`, which must put `marker` (a where condition on `id`) into the statement to capture, and
 * returns its result with that statement (undefined when the database reports none: PGlite).
 */
export async function captureStatement<T>(
  work: (marker: { id: { not: number } }) => Promise<T>,
): Promise<{ result: T; statement: CapturedStatement | undefined }> {
  lastMarker = (lastMarker % 2_000_000_000) + 1;
  const marker = -lastMarker;
  let statement: CapturedStatement | undefined;
  waiting.set(marker, (captured) => (statement ??= captured));
  try {
    const result = await work({ id: { not: marker } });
    return { result, statement };
  } finally {
    waiting.delete(marker);
  }
}
