import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { withoutVendorExtensions } from './odm-extensions';
import { validateOdm } from './odm-validate';

const FIXTURES = path.resolve(import.meta.dirname, 'fixtures');

describe('vendor extensions', () => {
  it('sets aside the vendor elements and attributes of a REDCap export, keeping every line and column', async () => {
    const xml = fs.readFileSync(path.join(FIXTURES, 'redcap-style-odm.xml'), 'utf8');
    expect((await validateOdm(xml)).valid).toBe(false);
    const plain = withoutVendorExtensions(xml);
    expect(plain.xml).toHaveLength(xml.length);
    expect(plain.xml.split('\n').map((l) => l.length)).toEqual(xml.split('\n').map((l) => l.length));
    expect(plain.xml.replace('xmlns:redcap=', '')).not.toContain('redcap:');
    expect(await validateOdm(plain.xml)).toMatchObject({ valid: true, errors: [] });
    const byName = Object.fromEntries(plain.extensions.map((e) => [`${e.kind} ${e.name}`, e.count]));
    expect(byName).toMatchObject({
      'element redcap:RecordAutonumberingEnabled': 1,
      'element redcap:SurveysEnabled': 1,
      'attribute redcap:Variable': 12,
      'attribute redcap:FieldType': 5,
    });
    expect(plain.extensions[0]).toMatchObject({ name: 'redcap:RecordAutonumberingEnabled', line: 8 });
  });

  it('blanks a vendor element with its children and leaves an error of the file where it was', async () => {
    const xml = [
      '<ODM xmlns="http://www.cdisc.org/ns/odm/v1.3" xmlns:oc="http://www.openclinica.org/ns/odm_ext_v130/v3.1" FileOID="F" FileType="Snapshot" CreationDateTime="2024-01-01T00:00:00" ODMVersion="1.3">',
      '<Study OID="S"><GlobalVariables><StudyName>s</StudyName><StudyDescription>d</StudyDescription><ProtocolName>p</ProtocolName></GlobalVariables>',
      '<MetaDataVersion OID="M" Name="m">',
      '<oc:StudyDetails StudyOID="S"><oc:StudyParameterConfiguration>',
      '<oc:StudyParameterListRef StudyParameterListID="x" Value="1"/></oc:StudyParameterConfiguration></oc:StudyDetails>',
      '<FormDef OID="F.1" Name="f" Repeating="No" oc:Version="v1" Bogus="1"/>',
      '</MetaDataVersion></Study></ODM>',
    ].join('\n');
    const plain = withoutVendorExtensions(xml);
    expect(plain.xml).not.toContain('oc:StudyDetails');
    expect(plain.xml).not.toContain('oc:Version');
    expect(plain.xml).toContain('xmlns:oc=');
    expect(plain.extensions.map((e) => [e.kind, e.name, e.line])).toEqual([
      ['element', 'oc:StudyDetails', 4],
      ['attribute', 'oc:Version', 6],
    ]);
    const r = await validateOdm(plain.xml);
    expect(r.valid).toBe(false);
    expect(r.errors.map((e) => e.line)).toContain(6);
    expect(r.errors.map((e) => e.message).join(' ')).toMatch(/Bogus/);
  });

  it('returns a file without extensions, or one that is not well-formed, unchanged', () => {
    const odm = '<ODM xmlns="http://www.cdisc.org/ns/odm/v1.3"><Study OID="S"/></ODM>';
    expect(withoutVendorExtensions(odm)).toEqual({ xml: odm, extensions: [] });
    const broken = '<ODM xmlns:x="u"><x:a></ODM>';
    expect(withoutVendorExtensions(broken)).toEqual({ xml: broken, extensions: [] });
  });
});
