/** Rows a statement changed: the drivers report it beside drizzle's proxy result. */
export function changes(result: unknown): number {
  return (result as { changes?: number }).changes ?? 0;
}
