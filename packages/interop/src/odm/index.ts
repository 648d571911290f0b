/** CDISC ODM 1.3.2: study metadata and clinical data written (streamed), parsed, validated and imported. */
export * from './odm-write';
export * from './odm-parse';
export * from './odm-import';
export * from './odm-validate';
export * from './odm-extensions';
