/**
 * One way to declare an API route: method, path, guard, zod schemas (from packages/shared) and a handler that
 * returns the data of the success envelope. Validation happens after the guard, in the request's language.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { AuthedContext, Guard, ProjectScopedContext, RequestContext } from './context';

export type BodyType = 'form' | 'json' | 'multipart';

export interface RateLimitSpec {
  max: number;
  timeWindow: string;
  key?: (req: FastifyRequest) => string;
}

/** What the handler's ctx holds after the guard passed: a project for project and site scope. */
type Ctx<G extends Guard> = G extends { public: true }
  ? RequestContext
  : G extends { scope: 'project' | 'site' }
    ? ProjectScopedContext
    : AuthedContext;
type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface RouteSpec<
  G extends Guard = Guard,
  B extends z.ZodType | undefined = z.ZodType | undefined,
  Q extends z.ZodType | undefined = z.ZodType | undefined,
  R extends z.ZodType = z.ZodType,
> {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** path below /api */
  url: string;
  guard: G;
  summary: string;
  tags: string[];
  body?: B;
  query?: Q;
  response: R;
  /** form (default; JSON also accepted), json, or multipart */
  bodyType?: BodyType;
  /** largest body this route reads, in bytes (below the server's default); larger = 413 before parsing */
  bodyLimit?: number;
  /** per-route rate limit (requests per time window per key); several = each must pass */
  rateLimit?: RateLimitSpec | RateLimitSpec[];
  /**
   * the answer may be kept in the process (lib/response-cache.ts) and given again to the same caller's same request
   * until any data changes: only for reads whose answer depends on nothing but the caller's access, the request
   * and database rows (not the clock, not files), that write nothing and send the reply through the envelope
   */
  cache?: boolean;
  /** success envelope data is returned raw (e.g. a file download) when the handler sent the reply itself */
  raw?: boolean;
  handler: (input: {
    body: Out<B>;
    query: Out<Q>;
    ctx: Ctx<G>;
    req: FastifyRequest;
    reply: FastifyReply;
  }) => Promise<z.input<R>>;
}

/** Identity helper that keeps the generics of a route declaration. */
export function defineRoute<G extends Guard, B extends z.ZodType | undefined, Q extends z.ZodType | undefined, R extends z.ZodType>(
  spec: RouteSpec<G, B, Q, R>,
): RouteSpec {
  return spec;
}
