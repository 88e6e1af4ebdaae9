// OpinionChart: a placeholder component of the sample project (read-only tool demo).
export function OpinionChart(): null {
  return null;
}
