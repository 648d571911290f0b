/** Lab-value grading for safety review: reference ranges, units, CTCAE v5.0 (issue 13 item 3). */
export * from './lab-values';
export * from './lab-units';
export * from './reference-range';
export * from './ctcae-analytes';
export * from './analyte-match';
export * from './grade-lab';
