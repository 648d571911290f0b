/**
 * The one place pdf.js is loaded. Its legacy build (the one that runs on Node 20) bundles core-js, which on import
 * replaces process-wide built-ins with polyfills: JSON.stringify (≈ 14× slower), JSON.parse and
 * Array.prototype.push. Every JSON response of the server went through the slow stringify once any module imported
 * pdf.js. We load pdf.js and its worker module (which pdf.js would otherwise import lazily on the first document,
 * polyfilling again) here, then put the engine's own functions back. The features pdf.js needs that Node 20 lacks
 * (Promise.withResolvers, Map.prototype.getOrInsert, Uint8Array.prototype.toHex …) are additions and stay.
 */
const native = { push: Array.prototype.push, stringify: JSON.stringify, parse: JSON.parse };

const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
// sets globalThis.pdfjsWorker: the "fake worker" pdf.js uses in Node then runs in this thread without another import
// (a specifier in a variable: the worker module has no type declarations, and only its side effect is wanted)
const WORKER = 'pdfjs-dist/legacy/build/pdf.worker.mjs';
await import(WORKER);

Array.prototype.push = native.push;
JSON.stringify = native.stringify;
JSON.parse = native.parse;

export const { getDocument, AnnotationMode } = pdfjs;
export type { PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
