/**
 * The API's response serializer (issue 16 item 2; docs/decisions.md "Compiled response serializer"). Every route
 * declares its answer as a zod schema (packages/shared). fastify-type-provider-zod serialised an answer by encoding it
 * with that schema (checking every field and dropping keys the schema does not declare) and then JSON.stringify: for
 * a page of 50 subjects ≈ 1.9 ms, most of a list request's API time (bench/serializer.bench.ts). Here each route's
 * schema is compiled once, on its first answer, to JSON Schema (z.toJSONSchema, output side) and then to a
 * fast-json-stringify function, Fastify's own serializer: it writes the declared keys only, so nothing undeclared
 * leaves the server, at ≈ 1/14 of the cost. (Parts of a union may keep the order their keys were stored in, where
 * zod writes the schema's order: the same JSON value.)
 *
 * What it does not do is check the values' types. So with RESPONSE_CHECK on (the default outside production, and in
 * every test) each answer is also encoded with zod and the two must be the same JSON value; an answer that fails the
 * schema, or that the compiled function writes differently, is a 500 naming the route — the test suites and the
 * browser journeys run every route that way. A schema JSON Schema cannot express (or fast-json-stringify cannot
 * compile) keeps the zod way for its route, said once in the log.
 */
import { isDeepStrictEqual } from 'node:util';
import fastJson from 'fast-json-stringify';
import { z } from 'zod';
import type { FastifySerializerCompiler } from 'fastify';
import { ResponseSerializationError } from 'fastify-type-provider-zod';

type Serialize = (data: unknown) => string;

function zodSerializer(schema: z.ZodType, method: string, url: string): Serialize {
  return (data) => {
    const r = z.safeEncode(schema, data);
    if (!r.success) throw new ResponseSerializationError(method, url, { cause: r.error });
    return JSON.stringify(r.data);
  };
}

function compile(schema: z.ZodType, method: string, url: string): Serialize | null {
  try {
    const json = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any', target: 'draft-7' });
    return fastJson(json as Parameters<typeof fastJson>[0]);
  } catch (err) {
    console.warn(`[serializer] ${method} ${url}: kept the zod serializer (${(err as Error).message.split('\n')[0]})`);
    return null;
  }
}

/** Fastify's serializer compiler for the API: compiled per route on first use; `check` adds zod's check and a comparison. */
export function responseSerializerCompiler(check: boolean): FastifySerializerCompiler<unknown> {
  return ({ schema, method, url }) => {
    if (!(schema instanceof z.ZodType)) throw new Error(`${method} ${url}: a response schema must be a zod schema`);
    const viaZod = zodSerializer(schema, method, url);
    let compiled: Serialize | null | undefined;
    return (data: unknown) => {
      if (compiled === undefined) compiled = compile(schema, method, url);
      if (!compiled) return viaZod(data);
      if (!check) return compiled(data);
      const expected = viaZod(data);
      const out = compiled(data);
      // the same text, or the same value with keys in another order (parts the schema leaves open, e.g. a union
      // fast-json-stringify writes as it finds it, keep their stored order): anything else is a difference
      if (out !== expected && !isDeepStrictEqual(JSON.parse(out), JSON.parse(expected))) {
        throw new Error(`${method} ${url}: the compiled serializer wrote ${out.slice(0, 2000)} where the schema gives ${expected.slice(0, 2000)}`);
      }
      return out;
    };
  };
}
