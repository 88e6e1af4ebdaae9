// A placeholder service of the sample project (read-only tool demo).
export const version = "0.1.0";
