// AnalyticsDashboard: a placeholder component of the sample project (read-only tool demo).
export function AnalyticsDashboard(): null {
  return null;
}
