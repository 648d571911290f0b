import fs from 'node:fs';
import path from 'node:path';
import { Hl7Message } from '@medplum/core';
import { describe, expect, it } from 'vitest';
import { buildAck, buildErrorAck } from './hl7-ack';
import { decodeHl7, Hl7Error, hl7DateParts, readHl7Header, zoneOffsetAt, type Hl7ErrorCode } from './hl7-message';
import { parseHl7 } from './hl7-to-records';

const FIXTURES = path.resolve(import.meta.dirname, '../../test-fixtures/hl7v2');
const files = fs.readdirSync(FIXTURES).filter((f) => f.endsWith('.hl7'));
const read = (f: string): Buffer => fs.readFileSync(path.join(FIXTURES, f));
const NOW = new Date('2026-01-02T03:04:05Z');

/** the ACK parsed back with @medplum/core */
function ackOf(text: string): Hl7Message {
  expect(text).not.toMatch(/\n/);
  return Hl7Message.parse(text);
}

function expectError(input: string | Uint8Array, code: Hl7ErrorCode): Hl7Error {
  let caught: unknown;
  try {
    parseHl7(input);
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(Hl7Error);
  expect((caught as Hl7Error).code).toBe(code);
  return caught as Hl7Error;
}

describe('the 34 sample messages', () => {
  it('are all here, 13 with a byte-order mark, LF segment ends', () => {
    expect(files).toHaveLength(34);
    expect(
      files.filter((f) =>
        read(f)
          .subarray(0, 3)
          .equals(Buffer.from([0xef, 0xbb, 0xbf])),
      ),
    ).toHaveLength(13);
  });

  it.each(files)(
    '%s parses, has a type and control id, accounts for every segment and is acknowledged AA',
    (f) => {
      const bytes = read(f);
      const r = parseHl7(bytes);
      expect(r.messageType).toMatch(/^[A-Z]{3}\^[A-Z0-9]{2,3}$/);
      expect(r.controlId).not.toBe('');
      expect(r.version).toMatch(/^2\.\d/);
      expect(r.patient?.patientKey).toBeTruthy();
      expect(r.counts.inRecords + r.counts.context + r.counts.skipped).toBe(r.counts.segments);
      expect(r.counts.segments).toBe(
        bytes
          .toString('utf8')
          .split(/\n/)
          .filter((l) => l.trim()).length,
      );
      const ids = new Set(r.records.map((x) => x.externalId));
      expect(ids.size).toBe(r.records.length);
      for (const rec of r.records) {
        expect([1, 2, 3, 4, 5, 6, 7, 8]).toContain(rec.docType);
        expect(rec.externalId.startsWith(`HL7/`)).toBe(true);
        expect(rec.externalId).toContain(`/${r.controlId.slice(0, 100)}/${rec.resourceType}#`);
        expect(rec.raw.startsWith(rec.resourceType) || rec.raw.startsWith('ORC')).toBe(true);
        expect(rec.contentHash).toMatch(/^[0-9a-f]{64}$/);
        if (rec.resourceType === 'OBX' && rec.raw.split('|')[2] === 'NM' && rec.raw.split('|')[5])
          expect(typeof rec.valueNum).toBe('number');
      }
      // the same message with CRLF or CR segment ends gives the same result
      const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
      expect(parseHl7(text.replace(/\n/g, '\r\n')).records).toEqual(r.records);
      expect(parseHl7(text.replace(/\n/g, '\r')).records).toEqual(r.records);

      const ack = ackOf(buildAck(r, 'AA', undefined, { now: NOW }));
      const msh = r.message.header;
      expect(ack.header.getField(3).toString()).toBe(msh.getField(5).toString());
      expect(ack.header.getField(4).toString()).toBe(msh.getField(6).toString());
      expect(ack.header.getField(5).toString()).toBe(msh.getField(3).toString());
      expect(ack.header.getField(6).toString()).toBe(msh.getField(4).toString());
      expect(ack.header.getComponent(9, 1)).toBe('ACK');
      expect(ack.getSegment('MSA')?.getField(1).toString()).toBe('AA');
      expect(ack.getSegment('MSA')?.getField(2).toString()).toBe(msh.getField(10).toString());
      expect(ack.getSegment('ERR')).toBeUndefined();
    },
  );

  it('reads a lab result: LOINC code, number, UCUM unit, OBX-14 time, status', () => {
    const r = parseHl7(read('LRI_2.0-NG_CBC_Typ_Message.hl7'));
    expect(r.messageType).toBe('ORU^R01');
    expect(r.records).toHaveLength(28);
    expect(r.records[1]).toMatchObject({
      externalId: 'HL7/NIST Lab Facility/NIST-LRI-NG-002.00/OBX#2',
      docType: 3,
      codeSystem: 'http://loinc.org',
      code: '718-7',
      valueNum: 12.5,
      unit: 'g/mL',
      effectiveDate: '2011-01-03',
      effectiveAt: '2011-01-03T22:34:28.000Z',
      status: 'F',
    });
    expect(r.patient).toMatchObject({
      patientKey: 'PATID1234',
      identifiers: [{ type: 'medicalRecordId', system: 'NIST MPI', value: 'PATID1234' }],
    });
  });

  it('takes OBR-7 when OBX-14 is empty, and a structured numeric value', () => {
    const r = parseHl7(read('ORU-R01-RMGEAD.hl7'));
    expect(r.records[0]).toMatchObject({
      code: '1554-5',
      valueNum: 182,
      unit: 'mg/dl',
      effectiveDate: '2002-02-15',
      effectiveAt: '2002-02-15T01:30:00.000Z',
      docType: 3,
    });
  });

  it('maps vital signs, ADT visits, diagnoses, allergies and procedures', () => {
    const r = parseHl7(read('ADT-A01-01.hl7'));
    const by = (seg: string) => r.records.find((x) => x.resourceType === seg)!;
    expect(by('PV1')).toMatchObject({ docType: 1, code: 'P', display: 'preadmit', status: 'A01' });
    expect(by('DG1').docType).toBe(8);
    expect(by('AL1').docType).toBe(8);
    expect(by('PR1').docType).toBe(6);
    expect(by('OBX').docType).toBe(7);
    expect(r.patient?.identifiers.map((i) => i.type)).toEqual(['medicalRecordId', 'idCard']);
    expect(r.patient).toMatchObject({
      birthDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      gender: expect.any(String),
    });
    expect(r.skipped.map((s) => `${s.resourceType}:${s.reason}`)).toEqual(
      expect.arrayContaining(['IN1:notClinical', 'GT1:notClinical', 'NK1:notClinical']),
    );
  });

  it('pharmacy orders are one doctor-advice record per ORC group, with the RXE give code, amount and unit', () => {
    const r = parseHl7(read('RDE-O11-02.hl7'));
    const rx = r.records.filter((x) => x.resourceType === 'RXE');
    expect(rx).toHaveLength(2);
    expect(rx[0]).toMatchObject({
      docType: 4,
      codeSystem: 'http://hl7.org/fhir/sid/ndc',
      code: '0143963401',
      valueNum: 5,
      unit: 'mg/hr',
      status: 'NW',
    });
    expect(rx[0]!.raw.split('\r').map((s) => s.slice(0, 3))).toEqual(
      expect.arrayContaining(['ORC', 'RXO', 'RXE', 'RXR']),
    );
    expect(r.skipped.filter((s) => s.resourceType === 'FT1').every((s) => s.reason === 'notClinical')).toBe(
      true,
    );
  });

  it('VXU: each RXA is a record carrying its OBX; MDM: the TXA carries the document text; PPR: PRB is a diagnosis', () => {
    const vxu = parseHl7(read('VXU.hl7'));
    expect(vxu.records.map((x) => [x.resourceType, x.docType, x.code])).toEqual([
      ['RXA', 4, '49281-0215-88'],
      ['RXA', 4, '88'],
      ['RXA', 4, '88'],
    ]);
    expect(vxu.records[0]!.raw.split('\r').filter((s) => s.startsWith('OBX'))).toHaveLength(4);
    const mdm = parseHl7(read('MDM-T02-03.hl7'));
    expect(mdm.records).toHaveLength(1);
    expect(mdm.records[0]).toMatchObject({ resourceType: 'TXA', docType: 1 });
    expect(mdm.records[0]!.valueText!.split('\n').length).toBeGreaterThan(10);
    const ppr = parseHl7(read('PC1-Problem-Add-v2.3.1.hl7'));
    expect(ppr.records).toEqual([
      expect.objectContaining({
        resourceType: 'PRB',
        docType: 8,
        code: '596.5',
        display: 'BLADDER DYSFUNCTION',
        effectiveDate: '2004-06-29',
      }),
    ]);
    expect(ppr.records[0]!.externalId).toBe('HL7/unknown/331/PRB#1');
  });

  it('accounts for an unsupported message type (SIU) as skipped segments', () => {
    const r = parseHl7(read('SIU-S12-01.hl7'));
    expect(r.records).toHaveLength(0);
    expect(r.skipped.length).toBeGreaterThan(5);
    expect(r.skipped.every((s) => s.reason === 'unsupportedType')).toBe(true);
  });

  it('is idempotent: the same message gives the same externalIds and hashes; a changed value changes only its record', () => {
    const text = read('LAB-ORU-1.hl7').toString('utf8');
    const a = parseHl7(text);
    const b = parseHl7(text);
    expect(b.records.map((x) => [x.externalId, x.contentHash])).toEqual(
      a.records.map((x) => [x.externalId, x.contentHash]),
    );
    const target = a.records.find((x) => x.valueNum !== undefined)!;
    const line = target.raw.split('\r')[0]!;
    const changed = parseHl7(text.replace(line, line.replace(`|${line.split('|')[5]}|`, '|999.9|')));
    expect(changed.records.find((x) => x.externalId === target.externalId)?.valueNum).toBe(999.9);
    const diff = changed.records.filter((x, i) => x.contentHash !== a.records[i]!.contentHash);
    expect(diff.map((x) => x.externalId)).toEqual([target.externalId]);
  });

  it('maps PID-3 identifier types through configurable assigning-authority rules', () => {
    const msg =
      'MSH|^~\\&|HIS|H1|ES|ES|20240101120000||ADT^A04|C1|P|2.5\rPID|1||Z001^^^HIS^VN~M001^^^HIS^MR~110101199001011234^^^CHN^NNCHN~MZ9^^^OPD||张^三||19900101|F\rPV1|1|O';
    const r = parseHl7(msg, {
      identifierRules: { systems: { OPD: 'outpatientId' } },
      defaultTzOffset: '+0800',
    });
    expect(r.patient).toEqual({
      patientKey: 'Z001',
      identifiers: [
        { type: 'inpatientId', system: 'HIS', value: 'Z001' },
        { type: 'medicalRecordId', system: 'HIS', value: 'M001' },
        { type: 'idCard', system: 'CHN', value: '110101199001011234' },
        { type: 'outpatientId', system: 'OPD', value: 'MZ9' },
      ],
      name: '三 张',
      birthDate: '1990-01-01',
      gender: 'female',
    });
    expect(r.messageTime).toBe('2024-01-01T04:00:00.000Z');
    expect(r.records[0]).toMatchObject({ resourceType: 'PV1', docType: 1, code: 'O', display: 'outpatient' });
  });

  it("reads times without an offset in the hospital's IANA time zone, daylight saving time included", () => {
    const oru = (ts: string) =>
      `MSH|^~\\&|LAB|H1|ES|ES|${ts}||ORU^R01|C${ts}|P|2.5\rPID|1||M001^^^HIS^MR\rOBR|1||A1|718-7^Hgb^LN|||${ts}\rOBX|1|NM|718-7^Hemoglobin^LN||13.8|g/dL|||||F|||${ts}`;
    // 23:30 in Shanghai is 15:30 UTC the same day; read as UTC it would be 07:30 the next day there
    const sh = parseHl7(oru('202403102330'), { defaultTzOffset: 'Asia/Shanghai' });
    expect(sh.messageTime).toBe('2024-03-10T15:30:00.000Z');
    expect(sh.records.find((x) => x.code === '718-7')).toMatchObject({ effectiveAt: '2024-03-10T15:30:00.000Z', effectiveDate: '2024-03-10' });
    // New York: EST (-0500) in January, EDT (-0400) in July
    expect(parseHl7(oru('202401150800'), { defaultTzOffset: 'America/New_York' }).messageTime).toBe('2024-01-15T13:00:00.000Z');
    expect(parseHl7(oru('202407150800'), { defaultTzOffset: 'America/New_York' }).messageTime).toBe('2024-07-15T12:00:00.000Z');
    // an offset in the message wins over the zone
    expect(parseHl7(oru('202407150800+0000'), { defaultTzOffset: 'Asia/Shanghai' }).messageTime).toBe('2024-07-15T08:00:00.000Z');
    expect(zoneOffsetAt('Asia/Shanghai', 2024, 3, 10, 23, 30)).toBe('+0800');
    expect(zoneOffsetAt('Asia/Kolkata', 2024, 3, 10)).toBe('+0530');
    expect(zoneOffsetAt('Not/AZone', 2024, 3, 10)).toBeNull();
  });
});

describe('malformed messages: typed errors and AE/AR acknowledgements', () => {
  const good = read('ORU-R01-RMGEAD.hl7').toString('utf8');

  it('missing MSH → NO_MSH, answered AR with the control id unknown', () => {
    const bad = good.split('\n').slice(1).join('\n');
    const err = expectError(bad, 'NO_MSH');
    const ack = ackOf(buildErrorAck(bad, err, { now: NOW }));
    expect(ack.getSegment('MSA')?.getField(1).toString()).toBe('AR');
    expect(ack.getSegment('MSA')?.getField(2).toString()).toBe('');
    expect(ack.getSegment('ERR')?.getComponent(3, 1)).toBe('100');
    expect(ack.getSegment('ERR')?.getField(5).toString()).toBe('NO_MSH');
  });

  it('a byte-order mark, CRLF, MLLP framing bytes and trailing blank lines are accepted', () => {
    const framed = Buffer.concat([
      Buffer.from([0x0b]),
      Buffer.from('\uFEFF' + good.replace(/\n/g, '\r\n') + '\r\n\r\n'),
      Buffer.from([0x1c, 0x0d]),
    ]);
    const r = parseHl7(framed);
    expect(r.controlId).toBe('CNTRL-3456');
    expect(r.records).toHaveLength(1);
  });

  it('binary garbage → BAD_ENCODING, answered AR', () => {
    const garbage = Buffer.from(Array.from({ length: 200 }, (_v, i) => (i * 73 + 11) % 256));
    const err = expectError(garbage, 'BAD_ENCODING');
    expect(err.ackCode).toBe('AR');
    const ack = ackOf(buildErrorAck(garbage, err, { now: NOW }));
    expect(ack.getSegment('MSA')?.getField(1).toString()).toBe('AR');
    expect(ack.getSegment('ERR')?.getComponent(3, 1)).toBe('102');
    // an MSH followed by NUL bytes
    expectError(
      Buffer.concat([Buffer.from(good.split('\n')[0]! + '\r'), Buffer.from([0, 1, 2, 0xff, 0xfe])]),
      'BAD_ENCODING',
    );
    // Latin-1 bytes without MSH-18 are not UTF-8
    expectError(Buffer.from(good.replace('GLUCOSE', 'GLUCOSÉ'), 'latin1'), 'BAD_ENCODING');
  });

  it('a Latin-1 or GB 18030 message is read when MSH-18 says so', () => {
    const latin = good.replace('|P|2.4|', '|P|2.4||||||8859/1|').replace('GLUCOSE^POST', 'GLUCOSÉ^POST');
    expect(parseHl7(Buffer.from(latin, 'latin1')).records[0]!.display).toBe('GLUCOSÉ');
    const gb = good.replace('|P|2.4|', '|P|2.4||||||GB 18030-2000|').replace('GLUCOSE^POST', '血糖^POST');
    const gbBytes = Buffer.from(
      new Uint8Array([
        ...Buffer.from(gb.split('血糖')[0]!),
        0xd1,
        0xaa,
        0xcc,
        0xc7,
        ...Buffer.from(gb.split('血糖')[1]!),
      ]),
    );
    expect(parseHl7(gbBytes).records[0]!.display).toBe('血糖');
  });

  it('truncated messages → NO_CONTROL_ID / NO_MESSAGE_TYPE / BAD_SEGMENT, answered AE from the partial MSH', () => {
    const cut = good.slice(0, good.indexOf('|ORU^R01|') + 9); // MSH ends before MSH-10
    const err = expectError(cut, 'NO_CONTROL_ID');
    expect(err.ackCode).toBe('AE');
    const ack = ackOf(buildErrorAck(cut, err, { now: NOW }));
    expect(ack.header.getField(5).toString()).toBe('GHH LAB'); // sender and receiver swapped from the partial MSH
    expect(ack.header.getField(3).toString()).toBe('GHH OE');
    expect(ack.header.getComponent(9, 2)).toBe('R01');
    expect(ack.getSegment('MSA')?.getField(1).toString()).toBe('AE');
    expect(ack.getSegment('ERR')?.getComponent(3, 1)).toBe('101');

    expectError('MSH|^~\\&|A|B|C|D|20240101||', 'NO_MESSAGE_TYPE');
    expectError(`${good.split('\n').slice(0, 3).join('\n')}\nOB`, 'BAD_SEGMENT');
    expectError('MSH', 'BAD_ENCODING');
    expectError('MSHA^~\\&|x', 'BAD_ENCODING');
  });

  it('empty input → EMPTY, and an ACK is still built (AR, blank MSH fields)', () => {
    const err = expectError('  \r\n ', 'EMPTY');
    const ack = ackOf(buildErrorAck('', err, { now: NOW }));
    expect(ack.getSegment('MSA')?.getField(1).toString()).toBe('AR');
    expectError(new Uint8Array(0), 'EMPTY');
  });

  it('escapes delimiters in the ACK text', () => {
    const r = parseHl7(good);
    const ack = ackOf(buildAck(r, 'AE', 'field 3|value ^ bad & wrong', { now: NOW }));
    expect(ack.getSegment('MSA')?.getField(3).toString()).toBe('field 3\\F\\value \\S\\ bad \\T\\ wrong');
    expect(ack.getSegment('ERR')?.getComponent(3, 1)).toBe('207');
  });
});

describe('HL7 timestamps', () => {
  it('keep the date as written and give the instant from the offset', () => {
    expect(hl7DateParts('20110103143428-0800')).toEqual({
      effectiveDate: '2011-01-03',
      effectiveAt: '2011-01-03T22:34:28.000Z',
    });
    expect(hl7DateParts('20040629')).toEqual({ effectiveDate: '2004-06-29' });
    expect(hl7DateParts('200406')).toEqual({});
    expect(hl7DateParts('202401011200', '+0800')).toEqual({
      effectiveDate: '2024-01-01',
      effectiveAt: '2024-01-01T04:00:00.000Z',
    });
    expect(hl7DateParts('20241399')).toEqual({});
    expect(hl7DateParts('garbage')).toEqual({});
  });
});

describe('wire decoding by MSH-18 (the one decoder; the MLLP listener uses it too)', () => {
  const MSG = 'MSH|^~\\&|LAB|HOSP|ES|ES|20260101||ORU^R01|C1|P|2.5.1\rPID|1||123\r';

  it('strips a byte-order mark and decodes by MSH-18', () => {
    expect(decodeHl7(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(MSG)]))).toBe(MSG);
    const gb = Buffer.concat([Buffer.from('MSH|^~\\&|A|B|||||ADT^A01|1|P|2.5||||||GB 18030-2000\rPID|1||||'), Buffer.from([0xd5, 0xc5, 0xc8, 0xfd]), Buffer.from('\r')]);
    expect(decodeHl7(gb)).toContain('张三');
    const big5 = Buffer.concat([Buffer.from('MSH|^~\\&|A|B|||||ADT^A01|1|P|2.5||||||BIG-5\rPID|1||||'), Buffer.from([0xb1, 0x69, 0xa4, 0x54]), Buffer.from('\r')]);
    expect(decodeHl7(big5)).toContain('張三');
    // ISO 8859-1, not windows-1252: 0x80 stays U+0080
    const latin = Buffer.concat([Buffer.from('MSH|^~\\&|A|B|||||ADT^A01|1|P|2.5||||||8859/1\rNTE|1||'), Buffer.from([0x80, 0xe9]), Buffer.from('\r')]);
    expect(decodeHl7(latin)).toContain('\u0080é');
  });

  it('reads what Chinese hospital interfaces declare outside table 0211 (GBK, GB2312) and the ISO IR names', () => {
    for (const cs of ['GBK', 'gb2312', 'GB 2312']) {
      const gbk = Buffer.concat([Buffer.from(`MSH|^~\\&|A|B|||||ADT^A01|1|P|2.5||||||${cs}\rPID|1||||`), Buffer.from([0xd5, 0xc5, 0xc8, 0xfd]), Buffer.from('\r')]);
      expect(decodeHl7(gbk), cs).toContain('张三');
    }
    const ir100 = Buffer.concat([Buffer.from('MSH|^~\\&|A|B|||||ADT^A01|1|P|2.5||||||ISO IR100\rNTE|1||'), Buffer.from([0xe9]), Buffer.from('\r')]);
    expect(decodeHl7(ir100)).toContain('é');
    const greek = Buffer.concat([Buffer.from('MSH|^~\\&|A|B|||||ADT^A01|1|P|2.5||||||8859/7\rNTE|1||'), Buffer.from([0xe1]), Buffer.from('\r')]);
    expect(decodeHl7(greek)).toContain('α');
  });

  it('refuses invalid UTF-8 and an unsupported character set', () => {
    const bad = Buffer.concat([Buffer.from(MSG), Buffer.from([0xc3, 0x28])]);
    expect(() => decodeHl7(bad)).toThrow(Hl7Error);
    expect(() => decodeHl7(Buffer.from('MSH|^~\\&|A|B|||||ADT^A01|1|P|2.5||||||EBCDIC\r'))).toThrow(/not supported/);
    expectError(Buffer.from('MSH|^~\\&|A|B|||||ADT^A01|1|P|2.5||||||EBCDIC\r'), 'BAD_CHARSET');
    expect(() => parseHl7(Buffer.from('PID|1||123\r'))).toThrow(/MSH/);
  });

  it('reads the MSH fields of any bytes, or null without MSH', () => {
    const h = readHl7Header(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf, 0x0b, 0x0d]), Buffer.from('MSH|^~\\&|LAB^1.2.3^ISO|^9.9^ISO|ES|ES|20260101||ORU^R01^ORU_R01|C1|t^T|2.5.1\r')]));
    expect(h).toEqual({ sendingApp: 'LAB', sendingFacility: '9.9', messageType: 'ORU^R01', controlId: 'C1', processingId: 'T', charset: '' });
    expect(readHl7Header(Buffer.from('PID|1||123\r'))).toBeNull();
    expect(readHl7Header(new Uint8Array(0))).toBeNull();
  });
});
