// ChatInput: a placeholder component of the sample project (read-only tool demo).
export function ChatInput(): null {
  return null;
}
