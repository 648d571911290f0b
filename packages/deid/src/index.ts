// @esource/deid: de-identification of text, pure (no database, no HTTP, no OCR).
export { detectIdentifiers, createContext } from './detect.js';
export { applyMask, mergeSpans } from './spans.js';
export { isValidIdCard18, isValidIdCard15, idCardCheckChar } from './detectors/id-card.js';
export { DEFAULT_POLICY } from './types.js';
export type { DeidKind, DeidOptions, DeidPolicy, DeidSpan, SubjectIdentifiers } from './types.js';
