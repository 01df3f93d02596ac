// The machine services a primitive may use (the interface lives in values.ts, beside the
// PrimitiveFn that receives it, so the value model and the runtime do not import each other).
export type { Runtime } from './values.js';
