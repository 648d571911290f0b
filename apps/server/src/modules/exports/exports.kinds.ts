/**
 * The kinds of generated file. A kind is its parameters' schema, the permission it needs, a `prepare` step that runs
 * in the request (checks the caller's scope and the references in the parameters, names the file) and a `generate`
 * step that runs in the job and writes the file to a stream, reporting progress. The service, the job, the list,
 * download and delete are the same for every kind: adding ODM, Excel or Dataset-JSON exports is adding an entry here.
 */
import { EXPORT_PERMISSIONS, type ExportKind } from '@esource/shared';
import { casebookKind } from './casebook/casebook.kind';
import { studyDatasetJsonKind, studyOdmKind, studyXlsxKind } from './study/study-exports';
import type { AnyExportKind, ExportKindDef } from './exports.types';

export type {
  AnyExportKind,
  ExportKindDef,
  ExportTarget,
  GenerateInput,
  ReportProgress,
} from './exports.types';

function erase<P>(def: ExportKindDef<P>): AnyExportKind {
  if (def.permission !== EXPORT_PERMISSIONS[def.kind])
    throw new Error(`export kind ${def.kind}: permission differs from the shared catalogue`);
  return {
    kind: def.kind,
    permission: def.permission,
    contentType: def.contentType,
    parse: (raw) => def.params.parse(raw),
    prepare: (db, ctx, params) => def.prepare(db, ctx, def.params.parse(params)),
    generate: (input, out, report) =>
      def.generate({ ...input, params: def.params.parse(input.params) }, out, report),
    ownProcess: def.ownProcess ?? false,
  };
}

const KINDS: Readonly<Record<ExportKind, AnyExportKind>> = {
  casebook: erase(casebookKind),
  'study-odm': erase(studyOdmKind),
  'study-xlsx': erase(studyXlsxKind),
  'study-datasetjson': erase(studyDatasetJsonKind),
};

export function exportKind(kind: string): AnyExportKind | null {
  return Object.prototype.hasOwnProperty.call(KINDS, kind) ? KINDS[kind as ExportKind] : null;
}
