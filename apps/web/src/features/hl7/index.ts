/** The HL7 v2 message screens (issue 11): what other features use. Pages are bound in routes/route-pages.ts. */
export { hl7Key } from './api/hl7-api';
