/**
 * The demo EDC (issue 14): a strict Rave-style ODM receiver (kind 1) started with the demo study, so that a new user
 * can configure, map and sync the demo study without a real EDC. Its study definition is the demo design's, with
 * two deliberate differences a real sponsor's EDC could have:
 * - body weight is a whole number of kg there (ours takes one decimal), so a weight like 72.5 is refused by the EDC
 *   with its own reason — and synced once corrected;
 * - its vital-signs form has two item groups: blood pressure (systolic, diastolic) in `IG.VS_BP`, the rest in
 *   `IG.VS` — so a sync sends that form as two ItemGroupData, each item in its group (the EDC refuses an item sent
 *   in another group); auto-mapping takes the groups from the EDC's item list.
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

/** The demo EDC's item group of the vital signs' blood pressure (see the file comment). */
export const DEMO_EDC_BP_GROUP = 'IG.VS_BP';

/** Moves the blood pressure items of our VS group into a group of their own, referenced by the VS form. */
function splitBloodPressure(xml: string): string {
  const bp = /\n\s*<ItemRef ItemOID="I\.VS\.(SYSBP|DIABP)"[^>]*\/>/g;
  return xml
    .replace(/(<ItemGroupDef OID="IG\.VS" [^>]*>)([\s\S]*?)(\n\s*<\/ItemGroupDef>)/, (_m, open: string, refs: string, close: string) => {
      const moved = refs.match(bp) ?? [];
      return `${open}${refs.replace(bp, '')}${close}\n    <ItemGroupDef OID="${DEMO_EDC_BP_GROUP}" Name="血压 / Blood pressure" Repeating="No">${moved.join('')}${close}`;
    })
    .replace(/(<FormDef OID="F\.VS" [\s\S]*?<ItemGroupRef ItemGroupOID="IG\.VS" OrderNumber="1" Mandatory="Yes"\/>)/, `$1\n      <ItemGroupRef ItemGroupOID="${DEMO_EDC_BP_GROUP}" OrderNumber="2" Mandatory="Yes"/>`);
}

export async function startDemoEdc(db: Db, port: number, projectNo = 'DEMO-001'): Promise<RaveReceiver | null> {
  const design = await designOf(db, projectNo);
  if (!design) return null;
  const xml = splitBloodPressure(
    [...designToOdmMetadata(design, { studyOid: DEMO_EDC.studyOid })]
      .join('')
      // the EDC's weight: whole kg (see the file comment)
      .replace(/<ItemDef OID="I\.VS\.WEIGHT"([^>]*?) DataType="float" SignificantDigits="\d+"/, '<ItemDef OID="I.VS.WEIGHT"$1 DataType="integer" Length="3"'),
  );
  return startRaveReceiver({ metadataXml: xml, environment: DEMO_EDC.environment, user: DEMO_EDC.user, password: DEMO_EDC.password, port, host: '127.0.0.1' });
}
