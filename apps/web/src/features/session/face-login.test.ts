import { describe, expect, it } from 'vitest';
import { ceremonyProblem } from './face-login';

const dom = (name: string) => Object.assign(new Error(`${name} happened`), { name });

describe('ceremonyProblem', () => {
  it('sorts the browser’s WebAuthn errors by what the user can do', () => {
    expect(ceremonyProblem(dom('NotAllowedError')).problem).toBe('cancelled');
    expect(ceremonyProblem(dom('AbortError')).problem).toBe('cancelled');
    expect(ceremonyProblem(dom('SecurityError')).problem).toBe('notHere');
    expect(ceremonyProblem(dom('InvalidStateError')).problem).toBe('exists');
    // @simplewebauthn/browser's WebAuthnError keeps the DOM error as its cause
    expect(
      ceremonyProblem(
        Object.assign(new Error('wrapped'), { name: 'WebAuthnError', cause: dom('NotAllowedError') }),
      ).problem,
    ).toBe('cancelled');
    const other = ceremonyProblem(dom('UnknownError'));
    expect(other.problem).toBe('failed');
    expect(other.message).toBe('UnknownError happened');
  });
});
