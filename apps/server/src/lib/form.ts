/**
 * The form-encoded body parser (the default encoding, DESIGN §3.1): qs, for `a[b]=1` and repeated keys as lists,
 * with hard limits that answer 400 naming the problem instead of silently dropping or reshaping input.
 */
import qs from 'qs';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { fieldError } from './validate';

/** `a[b][c]`: a form field nests at most this deep (our forms nest 1; JSON bodies take the deep ones). */
export const FORM_MAX_DEPTH = 5;
/** parameters in one form body; an id list of 10,000 (idListSchema's maximum) is 10,000 parameters */
export const FORM_MAX_PARAMETERS = 20_000;
/** items of one list (`ids=1&ids=2…` or `ids[]=…`), as idListSchema allows */
export const FORM_MAX_LIST = 10_000;

const OPTIONS: qs.IParseOptions = {
  depth: FORM_MAX_DEPTH,
  strictDepth: true,
  arrayLimit: FORM_MAX_LIST,
  parameterLimit: FORM_MAX_PARAMETERS,
  throwOnLimitExceeded: true,
};

/** Parses a form body; a body over a limit throws a VALIDATION error in the request's language. */
export function parseForm(body: string, req: Pick<FastifyRequest, 'ctx'>): Record<string, unknown> {
  try {
    return qs.parse(body, OPTIONS);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    const lang = req.ctx?.language ?? 'zh_CN';
    if (/depth/i.test(e.message)) throw fieldError(lang, 'body', 'validation.tooDeep', { max: FORM_MAX_DEPTH });
    if (/array/i.test(e.message)) throw fieldError(lang, 'body', 'validation.tooManyItems', { max: FORM_MAX_LIST });
    throw fieldError(lang, 'body', 'validation.tooManyParams', { max: FORM_MAX_PARAMETERS });
  }
}

/** Registers parseForm for application/x-www-form-urlencoded. */
export function registerFormParser(app: FastifyInstance): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (req, body, done) => {
    try {
      done(null, parseForm(body as string, req));
    } catch (e) {
      done(e as Error);
    }
  });
}
