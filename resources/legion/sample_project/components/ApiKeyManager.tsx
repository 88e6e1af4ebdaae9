// ApiKeyManager: a placeholder component of the sample project (read-only tool demo).
export function ApiKeyManager(): null {
  return null;
}
