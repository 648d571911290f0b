/**
 * The demo dictionaries (issue 13 item 5; idempotent): for each kind without any version yet, the small open list in
 * seed/dictionaries/<kind>.csv is read by the import's own reader and written by its writer, as version 'demo-1'
 * (active). Sources and licences: seed/dictionaries/README.md and docs/decisions.md; each version's source note says
 * them too.
 */
import fs from 'node:fs';
import { eq } from 'drizzle-orm';
import { DICTIONARY_KINDS, type DictionaryKind } from '@esource/shared';
import type { Db } from '../db/client';
import { dictionaries } from '../db/schema';
import { readDictionaryFile } from '../modules/dictionaries/dictionaries.import';
import { writeVersion } from '../modules/dictionaries/dictionaries.service';

export const DEMO_DICTIONARY_VERSION = 'demo-1';

const SEEDS: Record<DictionaryKind, { name: string; source: string }> = {
  drug: {
    name: 'RxNorm 常用药品（演示） / RxNorm common drugs (demo)',
    source:
      'RxNorm (U.S. National Library of Medicine): RXCUIs of common ingredients and of the clinical drugs of the Synthea FHIR fixtures; RxNorm content (SAB=RXNORM) is free to use. Chinese terms and synonyms: eSource demo translation.',
  },
  diagnosis: {
    name: 'ICD-10-CM 常见诊断（演示） / ICD-10-CM common diagnoses (demo)',
    source:
      'ICD-10-CM (U.S. CDC / National Center for Health Statistics), public domain; a demo subset. Chinese terms and synonyms: eSource demo translation.',
  },
  surgery: {
    name: 'ICD-9-CM-3 常见手术操作（演示） / ICD-9-CM Vol. 3 common procedures (demo)',
    source:
      'ICD-9-CM Volume 3 procedure codes (U.S. CMS / NCHS), public domain; a demo subset. Chinese terms and synonyms: eSource demo translation.',
  },
  examination: {
    name: 'LOINC 常用检验（演示） / LOINC common tests (demo)',
    source:
      'This material contains content from LOINC® (http://loinc.org). LOINC is copyright © Regenstrief Institute, Inc. and the LOINC Committee and is available at no cost under the license at http://loinc.org/license. Chinese names and synonyms: eSource demo translation.',
  },
};

/** The demo list of a kind, as a file an administrator could import. */
export function demoDictionaryFile(kind: DictionaryKind): Buffer {
  return fs.readFileSync(new URL(`./dictionaries/${kind}.csv`, import.meta.url));
}

/** Seeds each kind that has no version yet; returns true when it created any. */
export async function seedDemoDictionaries(db: Db): Promise<boolean> {
  let created = false;
  for (const kind of DICTIONARY_KINDS) {
    const [any] = await db
      .select({ id: dictionaries.id })
      .from(dictionaries)
      .where(eq(dictionaries.kind, kind))
      .limit(1);
    if (any) continue;
    const rows = await readDictionaryFile(demoDictionaryFile(kind), 'zh_CN');
    await db.transaction((tx) =>
      writeVersion(
        tx,
        { userId: null, userName: 'seed', requestId: null, ip: null, env: null },
        { kind, version: DEMO_DICTIONARY_VERSION, ...SEEDS[kind] },
        rows,
      ),
    );
    created = true;
  }
  return created;
}
