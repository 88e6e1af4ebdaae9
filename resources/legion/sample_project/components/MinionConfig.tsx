// MinionConfig: a placeholder component of the sample project (read-only tool demo).
export function MinionConfig(): null {
  return null;
}
