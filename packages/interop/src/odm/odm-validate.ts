/**
 * Schema validation of ODM documents against the official CDISC ODM 1.3.2 XSD set (copied beside this file in
 * schema-1.3.2/, with its licence), at run time and with no system dependency: libxml2's xmllint compiled to
 * WebAssembly (xmllint-wasm, MIT), run in a worker thread, in streaming mode (--stream), so that a large document
 * does not need a DOM in wasm memory. When the wasm module cannot run (it needs worker threads), the system's
 * /usr/bin/xmllint is used instead if present; the result says which engine answered.
 *
 * The XSD checks structure, types and OID uniqueness; it does not check that referenced OIDs exist — that is
 * parseOdmStudy's `problems`.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SaxesParser } from 'saxes';
import { validateXML, memoryPages } from 'xmllint-wasm';

export const ODM_SCHEMA_DIR = fileURLToPath(new URL('./schema-1.3.2/', import.meta.url));
const ENTRY = 'ODM1-3-2.xsd';
const INCLUDED = ['ODM1-3-2-foundation.xsd', 'xml.xsd', 'xmldsig-core-schema.xsd', 'xlink.xsd'];
const SYSTEM_XMLLINT = '/usr/bin/xmllint';

export interface OdmSchemaError {
  /** 1-based line of the document; 0 when xmllint gave none */
  line: number;
  message: string;
}

export interface OdmValidationResult {
  valid: boolean;
  errors: OdmSchemaError[];
  engine: 'xmllint-wasm' | 'xmllint-cli';
}

let schemaFiles: { fileName: string; contents: string }[] | null = null;
function schemas(): { fileName: string; contents: string }[] {
  schemaFiles ??= [ENTRY, ...INCLUDED].map((fileName) => ({
    fileName,
    contents: fs.readFileSync(path.join(ODM_SCHEMA_DIR, fileName), 'utf8'),
  }));
  return schemaFiles;
}

const DOC = 'odm.xml';

/** "element ItemDef: Schemas validity error : Element '{…}ItemDef': …" → the part after the error class. */
function cleanMessage(m: string): string {
  return m
    .replace(/^element [^:]+: /, '')
    .replace(/^(Schemas|Parser) (validity )?error : /, '')
    .replace(/\{http:\/\/www\.cdisc\.org\/ns\/odm\/v1\.3\}/g, '')
    .trim();
}

/**
 * The first well-formedness error of a document. xmllint's streaming reader stops on one without saying where
 * ("failed to parse"), so the position comes from saxes.
 */
function wellFormednessErrors(xml: string | Uint8Array): OdmSchemaError[] {
  const parser = new SaxesParser({ position: true });
  let first: OdmSchemaError | null = null;
  parser.on('error', (e) => {
    first ??= { line: parser.line, message: e.message.replace(/^\d+:\d+: /, '') };
  });
  parser.write(typeof xml === 'string' ? xml : new TextDecoder().decode(xml)).close();
  return [first ?? { line: 0, message: 'the document is not well-formed' }];
}

async function viaWasm(xml: string | Uint8Array): Promise<OdmValidationResult> {
  const [entry, ...preload] = schemas();
  const bytes = typeof xml === 'string' ? Buffer.byteLength(xml) : xml.byteLength;
  const r = await validateXML({
    xml: [{ fileName: DOC, contents: xml }],
    schema: [entry!],
    preload,
    stream: true,
    // the document is in the in-memory file system; the wasm heap holds the schema and the reader's window
    initialMemoryPages: memoryPages.defaultInitialMemoryPages,
    maxMemoryPages: Math.min(
      memoryPages.max,
      memoryPages.defaultMaxMemoryPages + Math.ceil(bytes / (64 * 1024)),
    ),
  }).catch((e: unknown) => {
    if (e instanceof Error && /failed to parse/.test(e.message)) return null;
    throw e;
  });
  if (r === null) return { valid: false, errors: wellFormednessErrors(xml), engine: 'xmllint-wasm' };
  const errors = r.errors
    .filter(
      (e) =>
        !(e.loc === null && /fails to validate|validates$/.test(e.rawMessage.trim())) &&
        e.rawMessage.trim() !== '',
    )
    .map((e) => ({ line: e.loc?.lineNumber ?? 0, message: cleanMessage(e.message) }));
  return { valid: r.valid && errors.length === 0, errors, engine: 'xmllint-wasm' };
}

async function viaCli(xml: string | Uint8Array): Promise<OdmValidationResult> {
  // not --stream: the system's libxml2 (2.9) reports no position for a parse error in streaming mode
  const child = spawn(
    SYSTEM_XMLLINT,
    ['--noout', '--nonet', '--schema', path.join(ODM_SCHEMA_DIR, ENTRY), '-'],
    { stdio: ['pipe', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => (stderr += d));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
    child.stdin.on('error', () => undefined);
    child.stdin.end(xml);
  });
  // "-:LINE: message" lines; the others are the echoed source line and caret of a parse error, or the summary
  const errors = stderr.split('\n').flatMap((l) => {
    const m = /^-:(\d+): (.*)$/.exec(l);
    return m ? [{ line: Number(m[1]), message: cleanMessage(m[2]!) }] : [];
  });
  if (code !== 0 && !errors.length)
    errors.push({ line: 0, message: stderr.trim() || `xmllint exited with ${code}` });
  return { valid: code === 0, errors, engine: 'xmllint-cli' };
}

export interface OdmValidateOptions {
  /** 'cli': the system xmllint only (tests, diagnostics); default: xmllint-wasm, the CLI when wasm cannot run */
  engine?: 'auto' | 'cli';
}

/**
 * Validates an ODM document against the ODM 1.3.2 XSD set. Errors carry the document line and libxml2's message
 * (a document that is not well-formed is reported the same way).
 */
export async function validateOdm(
  xml: string | Uint8Array,
  opts: OdmValidateOptions = {},
): Promise<OdmValidationResult> {
  if (opts.engine === 'cli') return viaCli(xml);
  try {
    return await viaWasm(xml);
  } catch (e) {
    if (!fs.existsSync(SYSTEM_XMLLINT)) throw e;
    return viaCli(xml);
  }
}
