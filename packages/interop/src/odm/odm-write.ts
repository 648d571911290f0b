/**
 * The writing side of ODM alone (OIDs, study metadata, clinical data), without the parser, importer and XSD validator
 * or the rest of the package (FHIR, HL7, FHIRPath, UCUM): what an export process needs to load (`@esource/interop/odm-write`).
 */
export * from './odm-oids';
export * from './odm-metadata';
export * from './odm-clinical';
