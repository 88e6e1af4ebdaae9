// ChannelList: a placeholder component of the sample project (read-only tool demo).
export function ChannelList(): null {
  return null;
}
