/**
 * Electronic signatures (21 CFR Part 11 §11.50, §11.200): certifying eCRF forms is the investigator's signature.
 * The signer re-authenticates with their password (sent as its SHA-256 digest, like a login) and signs with a stated
 * meaning; the server records signer, meaning, time and the re-authentication in the audit trail.
 */
import { z } from 'zod';
import { passwordDigest } from './auth.schema';
import { certifyBatchRequest, certifyRequest } from './ecrf.schema';

/** What a signature means; the statement shown and recorded is `esign.meaning.<code>` in the catalogue. */
export const SIGNATURE_MEANINGS = ['investigatorApproval'] as const;
export type SignatureMeaning = (typeof SIGNATURE_MEANINGS)[number];

/** The fields every signing request carries: the signer's password digest and the meaning they signed with. */
export const signatureFields = {
  password: passwordDigest,
  meaning: z.enum(SIGNATURE_MEANINGS).default('investigatorApproval'),
};

/** Certify one form: a signature. */
export const certifySignedRequest = certifyRequest.extend(signatureFields);
export type CertifySignedRequest = z.infer<typeof certifySignedRequest>;

/** Certify several forms (a visit) with one signature. */
export const certifyBatchSignedRequest = certifyBatchRequest.extend(signatureFields);
export type CertifyBatchSignedRequest = z.infer<typeof certifyBatchSignedRequest>;
