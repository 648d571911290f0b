/**
 * E-consent providers (issue 15 item 7): where the participants of a project environment come from. One interface,
 * chosen by the project environment's configuration (ec_configs; docs/decisions.md "E-consent participants"):
 *
 * - dev: a deterministic development list — the same participants every time for a project × environment, spread over
 *   the project's sites (plus one at a site the project does not have), realistic names, sexes, birth dates, consent
 *   dates and versions, and every status. Nothing leaves the server. Refused in production.
 * - http: the documented HTTP adapter. Request: `GET <baseUrl>/participants?studyCode=<studyCode>` with
 *   `accept: application/json` and, when a token is set, `authorization: Bearer <token>`; redirects are not followed;
 *   the configured timeout applies. Answer: 200 with JSON `{ "participants": [ { id, screeningNo, name?, initials?,
 *   sex? ('M'|'F'|'U'), birthDate? (YYYY-MM-DD), consentDate? (YYYY-MM-DD), consentVersion?, siteCode, status
 *   ('pending'|'consented'|'withdrawn'|'declined') } ] }` — at most EC_PROVIDER_MAX participants; a participant that does
 *   not fit the shape makes the whole answer unreadable (nothing half-read is shown). 401/403 are a refusal of the
 *   token, any other non-2xx a failure; neither the token nor the answer's body reaches a log or the audit trail.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { ecParticipant, type EcParticipant, type EcProviderKind } from '@esource/shared';

/** Most participants an HTTP answer may list (a study's whole e-consent register fits well within it). */
export const EC_PROVIDER_MAX = 20_000;
/** Largest HTTP answer read. */
const MAX_BYTES = 16 * 1024 * 1024;

/** Why the e-consent system could not be used: a catalogue key (econsent.provider.*) and its values. */
export class EcProviderError extends Error {
  override name = 'EcProviderError';
  constructor(
    readonly reason: 'timeout' | 'network' | 'status' | 'refused' | 'format' | 'tooMany',
    readonly params: Record<string, string | number> = {},
  ) {
    super(`e-consent provider failed: ${reason} ${JSON.stringify(params)}`);
  }
}

export interface EcProvider {
  readonly kind: EcProviderKind;
  /** Every participant of the study (the service scopes them to the caller's sites). Throws EcProviderError. */
  participants(): Promise<EcParticipant[]>;
}

// ── development provider ──

const SURNAMES = [
  '王',
  '李',
  '张',
  '刘',
  '陈',
  '杨',
  '黄',
  '赵',
  '吴',
  '周',
  '徐',
  '孙',
  '马',
  '朱',
  '胡',
  '郭',
  '何',
  '林',
  '罗',
  '高',
];
const GIVEN_F = ['秀英', '丽', '敏', '静', '娟', '芳', '霞', '玉兰', '桂英', '婷', '雪梅', '慧'];
const GIVEN_M = ['伟', '强', '磊', '军', '洋', '勇', '杰', '建国', '志强', '明', '涛', '国华'];
const INITIAL: Record<string, string> = {
  王: 'W',
  李: 'L',
  张: 'Z',
  刘: 'L',
  陈: 'C',
  杨: 'Y',
  黄: 'H',
  赵: 'Z',
  吴: 'W',
  周: 'Z',
  徐: 'X',
  孙: 'S',
  马: 'M',
  朱: 'Z',
  胡: 'H',
  郭: 'G',
  何: 'H',
  林: 'L',
  罗: 'L',
  高: 'G',
  秀: 'X',
  英: 'Y',
  丽: 'L',
  敏: 'M',
  静: 'J',
  娟: 'J',
  芳: 'F',
  霞: 'X',
  玉: 'Y',
  兰: 'L',
  桂: 'G',
  婷: 'T',
  雪: 'X',
  梅: 'M',
  慧: 'H',
  伟: 'W',
  强: 'Q',
  磊: 'L',
  军: 'J',
  洋: 'Y',
  勇: 'Y',
  杰: 'J',
  建: 'J',
  国: 'G',
  志: 'Z',
  明: 'M',
  涛: 'T',
  华: 'H',
};
/** Participants per site in the development list. */
export const DEV_PER_SITE = 14;
/** The site number of the development list's participant at a site the project does not have. */
export const DEV_UNKNOWN_SITE = '99';

/** A small deterministic generator (mulberry32) seeded from text. */
function rng(seed: string): () => number {
  let a = createHash('sha256').update(seed).digest().readUInt32LE(0);
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const day = (base: string, plusDays: number) =>
  new Date(Date.parse(`${base}T00:00:00Z`) + plusDays * 86_400_000).toISOString().slice(0, 10);

/**
 * The development list of a project × environment: DEV_PER_SITE participants at each of `siteCodes` and one at
 * DEV_UNKNOWN_SITE. Ids carry a hash of project, environment, site and number, so another project's ids are unknown
 * here. Statuses by position: every 5th pending (no consent yet), every 7th withdrawn, every 9th declined.
 */
export function devParticipants(
  projectId: number,
  env: string,
  siteCodes: readonly string[],
): EcParticipant[] {
  const out: EcParticipant[] = [];
  const codes = [...new Set(siteCodes)].sort();
  const place = (siteCode: string, n: number) => {
    const r = rng(`${projectId}|${env}|${siteCode}|${n}`);
    const pick = <T>(list: readonly T[]) => list[Math.floor(r() * list.length)]!;
    const female = r() < 0.5;
    const surname = pick(SURNAMES);
    const given = pick(female ? GIVEN_F : GIVEN_M);
    const name = surname + given;
    // every character here is one of the lists' CJK characters (one code unit each)
    const initials = Array.from({ length: name.length }, (_, i) => INITIAL[name.charAt(i)] ?? '').join('');
    const status =
      n % 5 === 0 ? 'pending' : n % 7 === 0 ? 'withdrawn' : n % 9 === 0 ? 'declined' : 'consented';
    // consents signed between 2025-03-03 and 2025-09-30, in screening order
    const consentDate =
      status === 'pending' || status === 'declined'
        ? null
        : day('2025-03-03', Math.min(211, n * 14 + Math.floor(r() * 10)));
    const id = `ec-${createHash('sha256').update(`${projectId}|${env}|${siteCode}|${n}`).digest('hex').slice(0, 12)}`;
    out.push({
      id,
      screeningNo: `S${siteCode}-${String(n).padStart(3, '0')}`,
      // some registers keep initials only
      name: n % 6 === 4 ? null : name,
      initials,
      sex: female ? 'F' : 'M',
      birthDate: day('1945-01-01', Math.floor(r() * 55 * 365)),
      consentDate,
      consentVersion:
        consentDate === null
          ? null
          : consentDate < '2025-06-01'
            ? 'ICF V2.0 2025-01-15'
            : 'ICF V2.1 2025-05-20',
      siteCode,
      status,
    });
  };
  for (const code of codes) for (let n = 1; n <= DEV_PER_SITE; n++) place(code, n);
  place(DEV_UNKNOWN_SITE, 1);
  return out;
}

export class DevEcProvider implements EcProvider {
  readonly kind = 'dev' as const;
  constructor(
    private readonly projectId: number,
    private readonly env: string,
    private readonly siteCodes: () => Promise<string[]>,
  ) {}

  async participants(): Promise<EcParticipant[]> {
    return devParticipants(this.projectId, this.env, await this.siteCodes());
  }
}

// ── HTTP adapter ──

export interface HttpEcSettings {
  baseUrl: string;
  studyCode: string;
  token: string | null;
  timeoutMs: number;
}

const answer = z.object({ participants: z.array(z.unknown()) });

export class HttpEcProvider implements EcProvider {
  readonly kind = 'http' as const;
  constructor(
    private readonly settings: HttpEcSettings,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  async participants(): Promise<EcParticipant[]> {
    const url = `${this.settings.baseUrl.replace(/\/+$/, '')}/participants?studyCode=${encodeURIComponent(this.settings.studyCode)}`;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.settings.token) headers.authorization = `Bearer ${this.settings.token}`;
    let res: Response;
    try {
      res = await this.fetchImpl(url, {
        method: 'GET',
        headers,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      });
    } catch (err) {
      const e = err as { name?: string; cause?: { code?: string } };
      if (e.name === 'TimeoutError' || e.name === 'AbortError')
        throw new EcProviderError('timeout', { ms: this.settings.timeoutMs });
      throw new EcProviderError('network', { detail: e.cause?.code ?? 'ERROR' });
    }
    if (res.status === 401 || res.status === 403)
      throw new EcProviderError('refused', { status: res.status });
    if (res.status < 200 || res.status >= 300) throw new EcProviderError('status', { status: res.status });
    let text: string;
    try {
      text = await readLimited(res, MAX_BYTES);
    } catch (err) {
      const e = err as { name?: string };
      if (e.name === 'TimeoutError' || e.name === 'AbortError')
        throw new EcProviderError('timeout', { ms: this.settings.timeoutMs });
      throw new EcProviderError('format', { detail: (err as Error).message.slice(0, 100) });
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new EcProviderError('format', { detail: 'not JSON' });
    }
    const top = answer.safeParse(json);
    if (!top.success) throw new EcProviderError('format', { detail: 'no participants list' });
    if (top.data.participants.length > EC_PROVIDER_MAX)
      throw new EcProviderError('tooMany', { max: EC_PROVIDER_MAX });
    const out: EcParticipant[] = [];
    const seen = new Set<string>();
    for (const [i, raw] of top.data.participants.entries()) {
      const p = ecParticipant.safeParse(raw);
      if (!p.success) {
        const issue = p.error.issues[0];
        throw new EcProviderError('format', { detail: `participants[${i}].${issue?.path.join('.') ?? ''}` });
      }
      if (seen.has(p.data.id))
        throw new EcProviderError('format', { detail: `participants[${i}].id repeated` });
      seen.add(p.data.id);
      out.push(p.data);
    }
    return out;
  }
}

async function readLimited(res: Response, max: number): Promise<string> {
  if (!res.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > max) {
      await res.body.cancel().catch(() => undefined);
      throw new Error(`answer larger than ${max} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
