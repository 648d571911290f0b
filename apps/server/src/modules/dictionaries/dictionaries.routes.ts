/**
 * Routes of the dictionaries (issue 13 item 5; our URLs, docs/decisions.md). System scope: versions, terms and search
 * with system:dictionary:query; import, template and the switch of the active version with system:dictionary:import.
 * Safety reviewers code terms from inside a project: GET /project/dictionary/search with clinical:judge:query.
 */
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  DICTIONARY_LIMITS,
  dictionaryActivateRequest,
  dictionaryImportFields,
  dictionaryList,
  dictionaryListRequest,
  dictionarySearchRequest,
  dictionarySearchResult,
  dictionaryTemplateQuery,
  dictionaryTermPage,
  dictionaryTermsRequest,
  dictionaryView,
  type Language,
} from '@esource/shared';
import type { AppDeps } from '../../app-deps';
import { AppError } from '../../lib/errors';
import { contentDisposition, importFileProblem, XLSX_MIME } from '../../lib/excel';
import { translator } from '../../lib/i18n';
import { defineRoute, type RouteSpec } from '../../lib/route';
import { parseInput } from '../../lib/validate';
import { buildTemplate } from './dictionaries.import';
import { searchTerms } from './dictionaries.search';
import { DictionariesService } from './dictionaries.service';

const READ = { permission: { anyOf: ['system:dictionary:query'] }, scope: 'system' } as const;
const WRITE = { permission: { anyOf: ['system:dictionary:import'] }, scope: 'system' } as const;
const tags = ['dictionaries'];

/** The fields and the one file of a multipart import (file ≤ DICTIONARY_LIMITS.maxBytes). */
async function readImport(
  req: FastifyRequest,
  lang: Language,
): Promise<{ fields: Record<string, string>; name: string; bytes: Buffer }> {
  if (!req.isMultipart())
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', { type: req.headers['content-type'] ?? '' });
  const fields: Record<string, string> = {};
  let file: { name: string; bytes: Buffer } | null = null;
  try {
    for await (const part of req.parts({
      limits: { fileSize: DICTIONARY_LIMITS.maxBytes, files: 1, fields: 10 },
    })) {
      if (part.type === 'file') {
        const bytes = await part.toBuffer();
        if (part.file.truncated) throw new AppError('PAYLOAD_TOO_LARGE');
        file = { name: part.filename || 'dictionary', bytes };
      } else fields[part.fieldname] = typeof part.value === 'string' ? part.value : String(part.value);
    }
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw new AppError('PAYLOAD_TOO_LARGE');
    if (code === 'FST_FILES_LIMIT') throw importFileProblem(lang, 'dictionaries.oneFile');
    throw err;
  }
  if (!file || file.bytes.length === 0) throw importFileProblem(lang, 'dictionaries.fileRequired');
  return { fields, ...file };
}

export function dictionaryRoutes({ database }: AppDeps): RouteSpec[] {
  const db = database.db;
  const svc = new DictionariesService(db);
  return [
    defineRoute({
      method: 'POST',
      url: '/system/dictionary/list',
      guard: READ,
      summary: 'Dictionary versions of a kind (or of all kinds), newest first, the active one marked',
      tags,
      body: dictionaryListRequest,
      response: dictionaryList,
      handler: ({ body }) => svc.list(body.kind),
    }),
    defineRoute({
      method: 'POST',
      url: '/system/dictionary/terms',
      guard: READ,
      summary:
        "A page of a version's terms: keyword (code, term, synonym anywhere; pinyin prefix), sort, 50/100/200",
      tags,
      body: dictionaryTermsRequest,
      response: dictionaryTermPage,
      handler: ({ body }) => svc.terms(body),
    }),
    defineRoute({
      method: 'GET',
      url: '/system/dictionary/search',
      guard: READ,
      summary:
        "Search a kind's active version (or a version) by code, term, synonym or pinyin initials; best first, ≤ 50",
      tags,
      query: dictionarySearchRequest,
      response: dictionarySearchResult,
      handler: ({ query }) => searchTerms(db, query),
    }),
    defineRoute({
      method: 'GET',
      url: '/project/dictionary/search',
      guard: { permission: { anyOf: ['clinical:judge:query'] }, scope: 'project' },
      summary: 'The same search for safety reviewers coding terms inside a project',
      tags,
      query: dictionarySearchRequest,
      response: dictionarySearchResult,
      handler: ({ query }) => searchTerms(db, query),
    }),
    defineRoute({
      method: 'GET',
      url: '/system/dictionary/template',
      guard: WRITE,
      summary:
        'Import template (.xlsx with notes, or .csv): headers in the request language, example rows of the kind',
      tags,
      query: dictionaryTemplateQuery,
      response: z.null(),
      raw: true,
      handler: async ({ ctx, query, reply }) => {
        const buf = await buildTemplate(ctx.language, query.kind, query.format);
        const t = translator(ctx.language);
        const name = `${t('dictionaries.templateFileName', { kind: t(`dictionaries.kind.${query.kind}`) })}.${query.format}`;
        void reply
          .header('content-type', query.format === 'csv' ? 'text/csv; charset=utf-8' : XLSX_MIME)
          .header(
            'content-disposition',
            contentDisposition(name, `dictionary-${query.kind}-template.${query.format}`),
          )
          .header('cache-control', 'no-store')
          .send(buf);
        return null;
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/system/dictionary/import',
      guard: WRITE,
      summary:
        'Import a version (multipart: kind, version, name?, source?, one .xlsx or .csv ≤ 40 MB, ≤ 200,000 terms); all or nothing; it becomes active',
      tags,
      bodyType: 'multipart',
      bodyLimit: DICTIONARY_LIMITS.maxBytes + 1024 * 1024,
      response: dictionaryView,
      handler: async ({ ctx, req }) => {
        const upload = await readImport(req, ctx.language);
        const fields = parseInput(dictionaryImportFields, upload.fields, ctx.language, 'body');
        return svc.importFile(ctx, fields, upload.name, upload.bytes);
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/system/dictionary/activate',
      guard: WRITE,
      summary: 'Make a version the active one of its kind (what the coding fields search)',
      tags,
      body: dictionaryActivateRequest,
      response: dictionaryView,
      handler: ({ ctx, body }) => svc.activate(ctx, body.id),
    }),
  ];
}
