/** @esource/interop: pure interoperability code (no database, no HTTP server). */
export * from './source-record';
export * from './mapping';
export * from './fhir/clinical-codes';
export * from './fhir/content-hash';
export * from './fhir/identifier-types';
export * from './fhir/fhir-to-records';
export * from './fhir/fhir-batch';
export * from './fhir/fhir-stream';
export * from './hl7/hl7-message';
export * from './hl7/hl7-to-records';
export * from './hl7/hl7-ack';
export * from './ocr/lab-results';
export * from './safety';
export * from './odm';
