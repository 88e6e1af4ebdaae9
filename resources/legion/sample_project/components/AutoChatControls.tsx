// AutoChatControls: a placeholder component of the sample project (read-only tool demo).
export function AutoChatControls(): null {
  return null;
}
