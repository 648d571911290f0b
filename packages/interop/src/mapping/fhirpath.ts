/**
 * FHIRPath rules (DESIGN §6): an expression evaluated with the `fhirpath` package and its R4 model on a record's
 * raw FHIR resource. A record matches when the expression gives a non-empty result that is not `false`; the value
 * is the first result (a number, a Quantity, a string, a Coding/CodeableConcept) or, for a boolean filter, the
 * record's own stored value.
 */
import fhirpath from 'fhirpath';
import r4 from 'fhirpath/fhir-context/r4/index.js';

export type CompiledExpression = (resource: unknown) => unknown[];

export type CompileResult = { ok: true; fn: CompiledExpression; resourceTypes: string[] } | { ok: false; error: string };

/** FHIR resource types the expression starts from ('Observation.value' → ['Observation']), to filter records first. */
function leadingResourceTypes(expr: string): string[] {
  const out = new Set<string>();
  // top-level 'A.x | B.y' alternatives; anything else (a function, $this, a parenthesis) filters nothing
  for (const part of expr.split('|')) {
    const m = /^\s*([A-Z][A-Za-z]+)(?:\.|\s*$)/.exec(part);
    if (!m) return [];
    out.add(m[1]!);
  }
  return [...out];
}

/**
 * Compiles (parses) an expression and runs it once on a minimal resource of its type, so that a syntax error or an
 * unknown function is found when the rule is saved, not when it runs.
 */
export function compileExpression(expr: string): CompileResult {
  const text = expr.trim();
  if (text === '') return { ok: false, error: 'empty expression' };
  try {
    const compiled = fhirpath.compile(text, r4, { async: false });
    const fn: CompiledExpression = (resource) => compiled(resource) as unknown[];
    const resourceTypes = leadingResourceTypes(text);
    const probe = { resourceType: resourceTypes[0] ?? 'Observation', id: 'probe', status: 'final', code: { text: 'probe', coding: [{ system: 'urn:probe', code: 'probe' }] }, valueQuantity: { value: 1, unit: '1', code: '1' } };
    fn(probe);
    return { ok: true, fn, resourceTypes };
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    return { ok: false, error: msg.split('\n')[0]!.replace(/ expecting \{.*$/, '').slice(0, 300) };
  }
}

export interface ExpressionValue {
  valueNum?: number;
  valueText?: string;
  unit?: string;
  code?: string;
  /** a boolean filter matched: use the record's stored value */
  useRecord?: boolean;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads the first result of an expression as a value; null: the record does not match. */
export function expressionValue(result: unknown[]): ExpressionValue | null {
  if (result.length === 0) return null;
  const v = result[0];
  if (v === false) return null;
  if (v === true) return { useRecord: true };
  if (typeof v === 'number') return { valueNum: v };
  if (typeof v === 'string') return { valueText: v };
  if (isObj(v)) {
    if (typeof v.value === 'number') return { valueNum: v.value, unit: typeof v.code === 'string' ? v.code : typeof v.unit === 'string' ? v.unit : undefined };
    const coding = Array.isArray(v.coding) ? (v.coding as unknown[]).find(isObj) : isObj(v) && typeof v.code === 'string' ? v : undefined;
    if (coding && isObj(coding)) return { code: typeof coding.code === 'string' ? coding.code : undefined, valueText: typeof coding.display === 'string' ? coding.display : typeof v.text === 'string' ? v.text : undefined };
    if (typeof v.text === 'string') return { valueText: v.text };
  }
  return { valueText: String(v) };
}
