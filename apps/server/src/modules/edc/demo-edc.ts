/**
 * The demo EDC (issue 14): a strict Rave-style ODM receiver (kind 1) started with the demo study, so that a new user
 * can configure, map and sync the demo study without a real EDC. Its study definition is the demo design's, with
 * one deliberate difference a real sponsor's EDC could have: body weight is a whole number of kg there (ours takes
 * one decimal), so a weight like 72.5 is refused by the EDC with its own reason — and synced once corrected.
 */
import { desc, eq } from 'drizzle-orm';
import { designToOdmMetadata } from '@esource/interop';
import type { DesignExportFile } from '@esource/shared';
import type { Db } from '../../db/client';
import { designVersions, projects } from '../../db/schema';
import { DesignService } from '../design/design.service';
import { startRaveReceiver, type RaveReceiver } from './receivers/rave-receiver';

export const DEMO_EDC = { studyOid: 'DEMO-001', environment: 'Prod', user: 'edc-demo', password: 'Demo-EDC-2026' } as const;

/** The newest design version of a project as a design file (what /project/info/export gives, without the audit). */
async function designOf(db: Db, projectNo: string): Promise<DesignExportFile | null> {
  const [p] = await db.select().from(projects).where(eq(projects.no, projectNo));
  if (!p) return null;
  const [v] = await db.select().from(designVersions).where(eq(designVersions.projectId, p.id)).orderBy(desc(designVersions.versionNo)).limit(1);
  return v ? new DesignService(db).designFile(v, { no: p.no, name: p.name }) : null;
}

export async function startDemoEdc(db: Db, port: number, projectNo = 'DEMO-001'): Promise<RaveReceiver | null> {
  const design = await designOf(db, projectNo);
  if (!design) return null;
  const xml = [...designToOdmMetadata(design, { studyOid: DEMO_EDC.studyOid })]
    .join('')
    // the EDC's weight: whole kg (see the file comment)
    .replace(/<ItemDef OID="I\.VS\.WEIGHT"([^>]*?) DataType="float" SignificantDigits="\d+"/, '<ItemDef OID="I.VS.WEIGHT"$1 DataType="integer" Length="3"');
  return startRaveReceiver({ metadataXml: xml, environment: DEMO_EDC.environment, user: DEMO_EDC.user, password: DEMO_EDC.password, port, host: '127.0.0.1' });
}
