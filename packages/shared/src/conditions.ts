/**
 * Display conditions of eCRF items: expressions over other items' variable codes, e.g.
 * `sex == "2" and age >= 18` or `has(symptoms, "fever")`. The language is filtrex 3's (the stored designs were
 * written for it), parsed and interpreted by `condition-language.ts` without eval or Function (the web app's CSP
 * has no 'unsafe-eval'): nothing but the item values and the functions below is reachable, and the browser and
 * the server evaluate identically, so that what the form shows and what the server requires always agree.
 */
import { BUILTIN_FUNCTIONS, evaluateCondition, parseCondition, type ConditionFunction, type ConditionScope } from './condition-language';

export type ItemValues = Record<string, unknown>;

/** A value as text for comparisons; objects never match. */
function scalar(v: unknown): string | null {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : null;
}

const functions: Record<string, ConditionFunction> = {
  ...BUILTIN_FUNCTIONS,
  /** true when a multiple-choice answer contains the value */
  has: (list: unknown, v: unknown) => {
    const wanted = scalar(v);
    return Array.isArray(list) ? list.some((x) => scalar(x) === wanted) : scalar(list) === wanted;
  },
  /** true when the item has no answer */
  empty: (v: unknown) => v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0),
  /** number of answers of a multiple-choice item */
  count: (v: unknown) => (Array.isArray(v) ? v.length : v === null || v === undefined || v === '' ? 0 : 1),
};

/**
 * What an expression can reach: the functions above (and filtrex's built-ins: abs, ceil, floor, log, log2, log10,
 * max, min, round, sqrt, exists); a name reads an own property of the values (or of `of`'s object), and an
 * unanswered item reads as null rather than an error.
 */
export const conditionScope: ConditionScope = {
  functions,
  prop: (name, obj) =>
    obj && typeof obj === 'object' && Object.prototype.hasOwnProperty.call(obj, name) ? ((obj as ItemValues)[name] ?? null) : null,
};

export interface CompiledCondition {
  evaluate(values: ItemValues): boolean;
  /** the variable codes the expression reads */
  variables: string[];
}

const cache = new Map<string, CompiledCondition>();

/** Compiles a condition; throws an Error with the parser's reason when it is not valid. */
export function compileCondition(expression: string): CompiledCondition {
  const hit = cache.get(expression);
  if (hit) return hit;
  const tree = parseCondition(expression);
  const variables = referencedVariables(expression);
  const compiled: CompiledCondition = {
    variables,
    evaluate: (values) => {
      try {
        return Boolean(evaluateCondition(tree, values, conditionScope));
      } catch {
        // a value of the wrong type (text where a number is wanted, an unanswered item under "and") hides the item
        return false;
      }
    },
  };
  if (cache.size > 5000) cache.clear();
  cache.set(expression, compiled);
  return compiled;
}

const KEYWORDS = new Set(['and', 'or', 'not', 'in', 'mod', 'if', 'then', 'else', 'true', 'false', 'of']);

/** The variable codes an expression mentions (identifiers outside string literals that are not calls). */
export function referencedVariables(expression: string): string[] {
  const bare = expression.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, ' ');
  const out = new Set<string>();
  for (const m of bare.matchAll(/\b([A-Za-z_][A-Za-z0-9_]*)\b(?!\s*\()/g)) {
    const name = m[1]!;
    if (!KEYWORDS.has(name.toLowerCase())) out.add(name);
  }
  return [...out];
}

/** The reason an expression does not compile, or null when it does. */
export function conditionError(expression: string): string | null {
  try {
    compileCondition(expression);
    return null;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/** Whether an item with this condition is shown for these values (no condition: always). */
export function isShown(condition: string | null | undefined, values: ItemValues): boolean {
  if (!condition || condition.trim() === '') return true;
  try {
    return compileCondition(condition).evaluate(values);
  } catch {
    return false;
  }
}
