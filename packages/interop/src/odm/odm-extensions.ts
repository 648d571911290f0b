/**
 * Vendor extensions in ODM files (ODM 1.3.2 §2.5): REDCap, OpenClinica, Castor, Rave and others put elements and
 * attributes of their own namespaces into the ODM they export, and declare them in an extended schema that travels
 * without the file. The plain ODM 1.3.2 XSD refuses them ("attribute redcap:Variable is not allowed"), so a receiver
 * that does not know the extension ignores it, as the standard allows: `withoutVendorExtensions` blanks every element
 * and attribute of another namespace (ODM, XML, XML Schema instance, XML Signature and XLink are the standard's own)
 * before schema validation, and lists what it left out. Each removed stretch is replaced by as many spaces, with its
 * line breaks kept, so every line and column of the document stays where it was (schema errors still name the
 * file's own lines).
 */
import { SaxesParser } from 'saxes';
import { ODM_NS } from './odm-xml';

const STANDARD_NS = new Set([
  ODM_NS,
  '',
  'http://www.w3.org/XML/1998/namespace',
  'http://www.w3.org/2000/xmlns/',
  'http://www.w3.org/2001/XMLSchema-instance',
  'http://www.w3.org/2000/09/xmldsig#',
  'http://www.w3.org/1999/xlink',
]);

/** One vendor element or attribute name, where it first appears and how often. */
export interface OdmVendorExtension {
  /** the qualified name as written, e.g. "redcap:Variable" or "OpenClinica:SubjectGroupData" */
  name: string;
  kind: 'element' | 'attribute';
  /** 1-based line of its first appearance */
  line: number;
  count: number;
}

export interface OdmWithoutExtensions {
  /** the document with vendor elements and attributes blanked (same length, same lines) */
  xml: string;
  extensions: OdmVendorExtension[];
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The document without its vendor extensions. A document that is not well-formed comes back unchanged (schema
 * validation reports it).
 */
export function withoutVendorExtensions(xml: string): OdmWithoutExtensions {
  const parser = new SaxesParser({ xmlns: true, position: true });
  const cuts: [number, number][] = [];
  const found = new Map<string, OdmVendorExtension>();
  const note = (name: string, kind: OdmVendorExtension['kind'], line: number): void => {
    const key = `${kind}|${name}`;
    const f = found.get(key);
    if (f) f.count++;
    else found.set(key, { name, kind, line, count: 1 });
  };
  let tagStart = 0;
  let tagLine = 1;
  /** start offset of the outermost vendor element open now, and its depth */
  let vendorFrom = -1;
  let depth = 0;
  let vendorDepth = -1;
  let failed = false;
  parser.on('error', () => {
    failed = true;
  });
  parser.on('opentagstart', () => {
    tagStart = xml.lastIndexOf('<', parser.position - 1);
    tagLine = parser.line;
  });
  parser.on('opentag', (tag) => {
    depth++;
    if (vendorFrom >= 0) return;
    if (!STANDARD_NS.has(tag.uri)) {
      vendorFrom = tagStart;
      vendorDepth = depth;
      note(tag.name, 'element', tagLine);
      return;
    }
    const tagEnd = parser.position;
    const text = xml.slice(tagStart, tagEnd);
    for (const a of Object.values(tag.attributes)) {
      if (STANDARD_NS.has(a.uri) || a.prefix === 'xmlns' || a.name === 'xmlns') continue;
      const m = new RegExp(`\\s${escapeRegExp(a.name)}\\s*=\\s*(?:"[^"]*"|'[^']*')`).exec(text);
      if (!m) continue;
      cuts.push([tagStart + m.index, tagStart + m.index + m[0].length]);
      note(a.name, 'attribute', tagLine);
    }
  });
  parser.on('closetag', () => {
    if (vendorFrom >= 0 && depth === vendorDepth) {
      cuts.push([vendorFrom, parser.position]);
      vendorFrom = -1;
      vendorDepth = -1;
    }
    depth--;
  });
  try {
    parser.write(xml).close();
  } catch {
    failed = true;
  }
  if (failed || !cuts.length) return { xml, extensions: [] };
  cuts.sort((a, b) => a[0] - b[0]);
  let out = '';
  let at = 0;
  for (const [from, to] of cuts) {
    if (from < at) continue;
    out += xml.slice(at, from) + xml.slice(from, to).replace(/[^\r\n]/g, ' ');
    at = to;
  }
  out += xml.slice(at);
  return { xml: out, extensions: [...found.values()].sort((a, b) => a.line - b.line) };
}
