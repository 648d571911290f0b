/**
 * Every audit event the server writes has a label in both languages: the event (`auditActions.<action>`, nested by
 * the dots), the object (`entities.<entity>` or `auditView.entities.<entity>`) and each field it names
 * (`auditView.fields.<field>`). Without one the audit screens, the trail's export and the event-name filter show
 * the raw code ("mapping.add", "mapping_rule").
 *
 * The events are found by reading apps/server/src (TypeScript's parser, no type checking): every object literal with
 * an `action` that is an audit entry (it names an entity, or takes one from a spread base). Its action, entity and
 * field are resolved to strings: literals, both sides of a ternary, a local constant, a parameter's literal union type,
 * default or the values its callers pass (in the same file; for a method, literals from any file), a helper's returned
 * base (`...this.base(ctx, 'version', id)`), and templates (`export.${kind}`) enumerated from their kinds. An action
 * or entity the scan cannot resolve fails the test too: name its values in KNOWN_KINDS or TEMPLATE_KINDS below.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { EXPORT_KINDS, FEEDBACK_REPLY_KINDS, QUERY_ACTIONS, markSaveRequest } from '@esource/shared';
import zhCN from '@esource/shared/i18n/zh_CN.json' with { type: 'json' };
import enUS from '@esource/shared/i18n/en_US.json' with { type: 'json' };

const SRC = join(import.meta.dirname, '../..');

/**
 * Values of expressions the scan cannot follow (a request's field, a shared constant), by their source text. The
 * lists come from the schemas that admit them, so a new kind without a label fails here.
 */
const KNOWN_KINDS: Record<string, readonly string[]> = {
  'input.kind': markSaveRequest.shape.kind.options, // `verification.${input.kind}`
  'input.action': Object.keys(QUERY_ACTIONS), // `query.${input.action}`
};
/** Per template: values of its spans when the span's own declaration does not tell them. */
const TEMPLATE_KINDS: Record<string, readonly string[]> = {
  '`feedback.${kind}`': FEEDBACK_REPLY_KINDS,
  '`export.${kind}`': EXPORT_KINDS,
};

/** Objects with `action` and `entity` that are not audit entries written: the trail read back or copied. */
const NOT_ENTRIES: { file: string; action: string }[] = [
  // recordAudit itself, copying each entry into the stored row
  { file: 'modules/audit/audit.service.ts', action: 'e.action' },
  // the trail's export, rows already presented
  { file: 'modules/audit/audit.routes.ts', action: 'd.event' },
];

interface Found {
  actions: Map<string, string[]>;
  entities: Map<string, string[]>;
  fields: Map<string, string[]>;
  unresolved: string[];
}

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sourceFiles(p, out);
    else if (p.endsWith('.ts') && !p.endsWith('.test.ts') && !p.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

const propName = (p: ts.ObjectLiteralElementLike): string | null =>
  (ts.isPropertyAssignment(p) || ts.isShorthandPropertyAssignment(p)) && p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name))
    ? p.name.text
    : null;

const prop = (o: ts.ObjectLiteralExpression, name: string) => o.properties.find((p) => propName(p) === name);

/** The expression a property gives (a shorthand's name). */
const valueOf = (p: ts.ObjectLiteralElementLike): ts.Expression | null =>
  ts.isPropertyAssignment(p) ? p.initializer : ts.isShorthandPropertyAssignment(p) ? p.name : null;

/** Parameters bound to a call's arguments while resolving a helper's returned object (`this.base(ctx, 'version', id)`). */
type Bindings = Map<ts.ParameterDeclaration, ts.Expression>;

class FileScan {
  /** every file read, for the callers of a method in other files */
  static all: FileScan[] = [];
  readonly rel: string;
  readonly sf: ts.SourceFile;
  private readonly calls: ts.CallExpression[] = [];

  constructor(readonly path: string) {
    this.rel = relative(SRC, path).split('\\').join('/');
    this.sf = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (n: ts.Node) => {
      if (ts.isCallExpression(n)) this.calls.push(n);
      ts.forEachChild(n, visit);
    };
    visit(this.sf);
  }

  text = (n: ts.Node) => n.getText(this.sf).replace(/\s+/g, ' ');

  where(n: ts.Node) {
    return `${this.rel}:${this.sf.getLineAndCharacterOfPosition(n.getStart(this.sf)).line + 1}`;
  }

  /** The strings an expression can be, or null when the scan cannot tell. */
  values(e: ts.Expression, b: Bindings = new Map()): string[] | null {
    if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return [e.text];
    if (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e) || ts.isNonNullExpression(e))
      return this.values(e.expression, b);
    if (ts.isConditionalExpression(e)) return this.union([e.whenTrue, e.whenFalse], b);
    if (ts.isBinaryExpression(e) && [ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.BarBarToken].includes(e.operatorToken.kind))
      return this.union([e.left, e.right], b);
    if (ts.isTemplateExpression(e)) {
      const own = this.text(e);
      let out = [e.head.text];
      for (const span of e.templateSpans) {
        const vs = TEMPLATE_KINDS[own] ?? this.values(span.expression, b);
        if (!vs) return null;
        out = out.flatMap((prefix) => vs.map((v) => prefix + v + span.literal.text));
      }
      return out;
    }
    if (ts.isIdentifier(e)) return this.identifier(e, b);
    const known = KNOWN_KINDS[this.text(e)];
    return known && known.length ? [...known] : null;
  }

  private union(list: ts.Expression[], b: Bindings): string[] | null {
    const out: string[] = [];
    for (const x of list) {
      const vs = this.values(x, b);
      if (!vs) return null;
      out.push(...vs);
    }
    return out;
  }

  /** A name: a local constant, a for-of over literals, or a parameter (its literal type, the call bound, its callers). */
  private identifier(id: ts.Identifier, b: Bindings): string[] | null {
    const name = id.text;
    for (let n: ts.Node | undefined = id.parent; n; n = n.parent) {
      if (ts.isFunctionLike(n)) {
        const i = n.parameters.findIndex((p) => ts.isIdentifier(p.name) && p.name.text === name);
        if (i >= 0) return this.parameter(n, i, b);
      }
      if (ts.isForOfStatement(n) && ts.isVariableDeclarationList(n.initializer)) {
        const d = n.initializer.declarations[0];
        if (d && ts.isIdentifier(d.name) && d.name.text === name) {
          const arr = this.arrayOf(n.expression);
          return arr ? this.union(arr, b) : null;
        }
      }
      if (ts.isBlock(n) || ts.isSourceFile(n) || ts.isModuleBlock(n)) {
        for (const st of n.statements) {
          if (!ts.isVariableStatement(st)) continue;
          for (const d of st.declarationList.declarations)
            if (ts.isIdentifier(d.name) && d.name.text === name && d.initializer) return this.values(d.initializer, b);
        }
      }
    }
    return null;
  }

  /** Elements of an array literal, directly or through a local constant. */
  arrayOf(e: ts.Expression): ts.Expression[] | null {
    if (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e)) return this.arrayOf(e.expression);
    if (ts.isArrayLiteralExpression(e)) return e.elements.filter((x) => !ts.isSpreadElement(x));
    if (ts.isIdentifier(e)) {
      for (const st of this.sf.statements)
        if (ts.isVariableStatement(st))
          for (const d of st.declarationList.declarations)
            if (ts.isIdentifier(d.name) && d.name.text === e.text && d.initializer) return this.arrayOf(d.initializer);
    }
    return null;
  }

  private parameter(fn: ts.SignatureDeclaration, i: number, b: Bindings): string[] | null {
    const p = fn.parameters[i]!;
    const bound = b.get(p);
    if (bound) return this.values(bound, b);
    const typed = p.type && this.literalType(p.type);
    if (typed) return typed;
    // its default, the values every caller in this file passes, and the literals callers elsewhere pass to a method
    const name = this.nameOf(fn);
    if (!name) return null;
    const out: string[] = [];
    if (p.initializer) {
      const vs = this.values(p.initializer);
      if (!vs) return null;
      out.push(...vs);
    }
    const callers = this.callersOf(name, i);
    if (callers.length) {
      const vs = this.union(callers.map((c) => c.arguments[i]!), new Map());
      if (!vs) return null;
      out.push(...vs);
    }
    if (ts.isMethodDeclaration(fn))
      for (const other of FileScan.all)
        if (other !== this)
          for (const c of other.callersOf(name, i)) {
            const arg = c.arguments[i]!;
            if (ts.isStringLiteral(arg) || ts.isConditionalExpression(arg)) out.push(...(other.values(arg) ?? []));
          }
    return out.length ? out : null;
  }

  private callersOf(name: string, i: number): ts.CallExpression[] {
    return this.calls.filter((c) => {
      const callee = c.expression;
      const n = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : null;
      return n === name && c.arguments.length > i;
    });
  }

  private literalType(t: ts.TypeNode): string[] | null {
    if (ts.isLiteralTypeNode(t) && ts.isStringLiteral(t.literal)) return [t.literal.text];
    if (ts.isUnionTypeNode(t)) {
      const out: string[] = [];
      for (const x of t.types) {
        const vs = this.literalType(x);
        if (!vs) return null;
        out.push(...vs);
      }
      return out;
    }
    if (ts.isTypeReferenceNode(t) && ts.isIdentifier(t.typeName)) {
      const alias = this.sf.statements.find((s): s is ts.TypeAliasDeclaration => ts.isTypeAliasDeclaration(s) && s.name.text === (t.typeName as ts.Identifier).text);
      return alias ? this.literalType(alias.type) : null;
    }
    return null;
  }

  private nameOf(fn: ts.SignatureDeclaration): string | null {
    if ((ts.isFunctionDeclaration(fn) || ts.isMethodDeclaration(fn)) && fn.name && ts.isIdentifier(fn.name)) return fn.name.text;
    if ((ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) && ts.isVariableDeclaration(fn.parent) && ts.isIdentifier(fn.parent.name))
      return fn.parent.name.text;
    return null;
  }

  /** The object a spread adds: a local constant's object, or the object a helper in this file returns (bound to the call). */
  spreadObject(e: ts.Expression): { o: ts.ObjectLiteralExpression; b: Bindings } | null {
    if (ts.isParenthesizedExpression(e)) return this.spreadObject(e.expression);
    if (ts.isObjectLiteralExpression(e)) return { o: e, b: new Map() };
    if (ts.isIdentifier(e)) {
      for (let n: ts.Node | undefined = e.parent; n; n = n.parent) {
        if (!(ts.isBlock(n) || ts.isSourceFile(n))) continue;
        for (const st of n.statements)
          if (ts.isVariableStatement(st))
            for (const d of st.declarationList.declarations)
              if (ts.isIdentifier(d.name) && d.name.text === e.text && d.initializer) return this.spreadObject(d.initializer);
      }
      return null;
    }
    if (ts.isCallExpression(e)) {
      const callee = e.expression;
      const name = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : null;
      let fn: ts.SignatureDeclaration | undefined;
      const find = (n: ts.Node) => {
        if (fn) return;
        if ((ts.isMethodDeclaration(n) || ts.isFunctionDeclaration(n) || ts.isArrowFunction(n) || ts.isFunctionExpression(n)) && this.nameOf(n) === name) fn = n;
        else ts.forEachChild(n, find);
      };
      find(this.sf);
      if (!fn) return null;
      const body = (fn as ts.FunctionLikeDeclaration).body;
      let returned: ts.Expression | undefined;
      if (body && ts.isBlock(body)) {
        const r = body.statements.find(ts.isReturnStatement);
        returned = r?.expression;
      } else returned = body;
      if (!returned) return null;
      const b: Bindings = new Map();
      fn.parameters.forEach((p, i) => {
        const arg = e.arguments[i];
        if (arg) b.set(p, arg);
      });
      const inner = this.spreadObject(returned);
      return inner ? { o: inner.o, b } : null;
    }
    return null;
  }

  /** An object's own property, or one its spreads give (the last wins, as at run time). */
  lookup(o: ts.ObjectLiteralExpression, name: string, b: Bindings): { e: ts.Expression; b: Bindings } | null {
    let found: { e: ts.Expression; b: Bindings } | null = null;
    for (const p of o.properties) {
      if (ts.isSpreadAssignment(p)) {
        const s = this.spreadObject(p.expression);
        const inner = s && this.lookup(s.o, name, s.b);
        if (inner) found = inner;
      } else if (propName(p) === name) {
        const v = valueOf(p);
        if (v) found = { e: v, b };
      }
    }
    return found;
  }

  /** Inside the arguments of `.values(...)` or `.set(...)`: a table row (a query message's or EDC log's action). */
  isTableRow(n: ts.Node): boolean {
    for (let p: ts.Node | undefined = n.parent; p; p = p.parent) {
      if (ts.isCallExpression(p) && ts.isPropertyAccessExpression(p.expression) && ['values', 'set'].includes(p.expression.name.text)) return true;
      if (ts.isFunctionLike(p)) return false;
    }
    return false;
  }
}

function scan(): Found {
  const found: Found = { actions: new Map(), entities: new Map(), fields: new Map(), unresolved: [] };
  const add = (m: Map<string, string[]>, keys: string[], where: string) => {
    for (const k of keys) m.set(k, [...(m.get(k) ?? []), where]);
  };
  FileScan.all = sourceFiles(SRC).map((path) => new FileScan(path));
  for (const f of FileScan.all) {
    if (f.rel === 'db/schema.ts') continue;
    const visit = (n: ts.Node) => {
      if (ts.isObjectLiteralExpression(n) && prop(n, 'action') && !f.isTableRow(n)) {
        const action = f.lookup(n, 'action', new Map())!;
        const entity = f.lookup(n, 'entity', new Map());
        const where = f.where(n);
        const actionText = f.text(action.e);
        if (entity && !NOT_ENTRIES.some((x) => x.file === f.rel && x.action === actionText)) {
          const actions = f.values(action.e, action.b);
          if (actions) add(found.actions, actions, where);
          else found.unresolved.push(`${where} action ${actionText}`);
          const entities = f.values(entity.e, entity.b);
          if (entities) add(found.entities, entities, where);
          else found.unresolved.push(`${where} entity ${f.text(entity.e)}`);
          const field = f.lookup(n, 'field', new Map());
          const fields = field && f.values(field.e, field.b);
          if (fields) add(found.fields, fields, where);
        } else if (!entity && /^['`"][a-zA-Z]+\.[a-zA-Z]/.test(actionText)) {
          // an action with a dot and no entity found: an entry the scan does not understand
          found.unresolved.push(`${where} entity of ${actionText}`);
        }
      }
      // entries that add a field to a base that has the action (`{ ...base, field: 'user' }`)
      if (ts.isObjectLiteralExpression(n) && !prop(n, 'action') && prop(n, 'field') && n.properties.some(ts.isSpreadAssignment)) {
        const action = f.lookup(n, 'action', new Map());
        const field = f.lookup(n, 'field', new Map());
        const fields = action && field && f.values(field.e, field.b);
        if (fields) add(found.fields, fields, f.where(n));
      }
      // diffEntries(base, before, after, FIELDS): one entry per listed field
      if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === 'diffEntries' && n.arguments[3]) {
        const list = f.arrayOf(n.arguments[3]);
        for (const x of list ?? []) {
          const vs = f.values(x);
          if (vs) add(found.fields, vs, f.where(n));
        }
      }
      ts.forEachChild(n, visit);
    };
    visit(f.sf);
  }
  return found;
}

const catalogues = { zh_CN: zhCN, en_US: enUS } as Record<string, unknown>;

function at(tree: unknown, path: string[]): unknown {
  let cur = tree;
  for (const k of path) {
    if (!cur || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[k];
  }
  return cur;
}
const labelled = (tree: unknown, ...paths: string[][]) => paths.some((p) => typeof at(tree, p) === 'string' && at(tree, p) !== '');

describe('audit labels', () => {
  const found = scan();

  it('finds the audit events the server writes (the scan still works)', () => {
    expect(found.unresolved).toEqual([]);
    // a few of every shape: literal, ternary, template from a schema, template from a parameter's type, a helper's base
    for (const a of ['logout', 'mapping.add', 'mapping.update', 'verification.sdv', 'query.reopen', 'report.crf-missing.export', 'microConfig.dc', 'export.casebook', 'feedback.answer', 'version.publish', 'source.connection.secret', 'project.enter', 'phone.codeRefused', 'member.invite'])
      expect([...found.actions.keys()], a).toContain(a);
    for (const e of ['mapping_rule', 'version', 'sourceConnection', 'member', 'micro_config']) expect([...found.entities.keys()], e).toContain(e);
    for (const x of ['secret', 'user', 'publishedEnvs']) expect([...found.fields.keys()], x).toContain(x);
  });

  for (const lang of Object.keys(catalogues)) {
    const tree = catalogues[lang];
    it(`every audit event has a label in ${lang}`, () => {
      const missing = [...found.actions].filter(([a]) => !labelled(tree, ['auditActions', ...a.split('.')])).map(([a, w]) => `${a} (${w[0]})`);
      expect(missing, `auditActions.* missing in ${lang}`).toEqual([]);
    });
    it(`every audited object has a label in ${lang}`, () => {
      const missing = [...found.entities]
        .filter(([e]) => !labelled(tree, ['entities', e], ['auditView', 'entities', e]))
        .map(([e, w]) => `${e} (${w[0]})`);
      expect(missing, `entities.* missing in ${lang}`).toEqual([]);
    });
    it(`every audited field has a label in ${lang}`, () => {
      const missing = [...found.fields].filter(([x]) => !labelled(tree, ['auditView', 'fields', x])).map(([x, w]) => `${x} (${w[0]})`);
      expect(missing, `auditView.fields.* missing in ${lang}`).toEqual([]);
    });
  }
});
