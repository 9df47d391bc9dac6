/**
 * Whether a test file should skip because a server binary is missing: only when AGENTWIRE_SKIP_SERVICES=1,
 * and then loudly. Otherwise the file runs and its start-up throws, so a machine without the binaries fails.
 */
export function skipMissingService(missing: string | undefined): boolean {
  if (missing === undefined) return false;
  if (process.env.AGENTWIRE_SKIP_SERVICES !== "1") return false;
  console.warn(`AGENTWIRE_SKIP_SERVICES=1: skipping, ${missing}`);
  return true;
}
