/**
 * Content hashing for source records: a canonical JSON (object keys sorted, arrays in order, no whitespace) and its
 * SHA-256, so that the same content always hashes the same however its keys were ordered by the sender.
 */
import { createHash } from 'node:crypto';

/**
 * Canonical JSON of a parsed JSON value: object keys in code-unit order at every level, arrays kept in order,
 * `undefined` members dropped (as JSON.stringify does). Numbers and strings are written as JSON.stringify writes them.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value))
    return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(obj).sort()) {
    const v = obj[key];
    if (v === undefined || typeof v === 'function') continue;
    parts.push(`${JSON.stringify(key)}:${canonicalJson(v)}`);
  }
  return `{${parts.join(',')}}`;
}

/** SHA-256 of a string (UTF-8), lower-case hex. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * The content hash of a FHIR resource: SHA-256 of its canonical JSON without `meta.lastUpdated` and
 * `meta.versionId`, which a server changes on every write even when nothing clinical changed. A re-sent identical
 * resource (or one only re-saved at the hospital) therefore hashes the same.
 */
export function fhirContentHash(resource: Record<string, unknown>): string {
  const meta = resource.meta;
  if (meta && typeof meta === 'object' && !Array.isArray(meta)) {
    const { lastUpdated: _l, versionId: _v, ...rest } = meta as Record<string, unknown>;
    const copy: Record<string, unknown> = { ...resource };
    if (Object.keys(rest).length) copy.meta = rest;
    else delete copy.meta;
    return sha256Hex(canonicalJson(copy));
  }
  return sha256Hex(canonicalJson(resource));
}
