// The warning codes of the diagnostic catalog. A leaf file: the value model (Runtime.warn) and
// diagnostics.ts both name them without importing each other.
export type WarningCode = 'W330' | 'W331';
