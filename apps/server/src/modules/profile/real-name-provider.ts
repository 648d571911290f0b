/**
 * Real-name verification providers (issue 15 item 2; REAL_NAME_PROVIDER; docs/decisions.md "Real-name verification").
 * A provider answers whether a name and a resident ID number belong together — in production a licensed identity
 * service (the public-security citizen-identity check, reached through a vendor), here a development one. The number
 * reaches the provider and nothing else: the service keeps only its HMAC and masked form.
 */
import type { Config } from '../../config/config';

export type RealNameOutcome =
  | { outcome: 'match'; reference?: string }
  | { outcome: 'mismatch'; reason?: string }
  | { outcome: 'error'; reason: string };

export interface RealNameProvider {
  /** stored with the result and named in messages (translated from profile.realNameProvider.<name> when there) */
  readonly name: string;
  /** `idNumber` is valid (format, birth date, check digit) and upper-case when this is called */
  verify(input: { name: string; idNumber: string; requestId: string }): Promise<RealNameOutcome>;
}

/**
 * The development provider: nothing leaves the server. Every valid number matches any name, except the documented
 * test pattern — sequence code 999 (characters 15–17) — which answers "does not match", so that screens and tests can
 * show a refusal with a number whose check digit is right.
 */
export const developmentRealNameProvider: RealNameProvider = {
  name: 'development',
  verify({ idNumber }) {
    if (idNumber.slice(14, 17) === '999')
      return Promise.resolve({ outcome: 'mismatch', reason: 'test pattern: sequence code 999' });
    return Promise.resolve({ outcome: 'match', reference: `dev-${Date.now().toString(36)}` });
  },
};

/** The configured provider, or null when none is (REAL_NAME_PROVIDER=none, the default in production). */
export function realNameProviderOf(config: Pick<Config, 'realNameProvider'>): RealNameProvider | null {
  switch (config.realNameProvider) {
    case 'development':
      return developmentRealNameProvider;
    case 'none':
      return null;
  }
}
