/**
 * When a failed delivery is attempted again (docs/webhooks.md, "Retries"). The default follows the
 * Standard Webhooks reference schedule: 5 seconds, 5 minutes, 30 minutes, 2, 5, 10 and 10 hours after
 * each failure, so a delivery is attempted 8 times over 27 hours and 35 minutes before it fails.
 */
const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = Object.freeze([
  5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR,
]);

/** An endpoint whose attempts have all failed for this long is disabled. */
export const DISABLE_FAILING_AFTER_MS = 3 * 24 * HOUR;

/**
 * The delay before the next attempt after `failures` failed attempts in a row (1 after the first), or
 * null when the schedule is spent and the delivery fails.
 */
export function retryDelay(failures: number, delays: readonly number[] = DEFAULT_RETRY_DELAYS_MS): number | null {
  return failures >= 1 && failures <= delays.length ? delays[failures - 1]! : null;
}
