import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { App as AntApp } from 'antd';
import { I18nextProvider } from 'react-i18next';
import type { SignatureMeaning } from '@esource/shared';
import { initI18n, i18n } from '../../../i18n/i18n';
import { sha256Hex } from '../../../lib/sha256';
import { sessionStore } from '../../session';
import { SignatureDialog } from './signature-dialog';

beforeAll(() => {
  initI18n('en_US');
  sessionStore.set({
    user: {
      id: 6,
      name: 'Dr. Ivy Investigator',
      account: 'pi',
      roleCode: null,
      imgUrl: null,
      token: 't',
      projectType: 'PRO',
      loginType: 3,
    },
  });
});
afterEach(() => cleanup());

function renderDialog(onSign: (pw: string, meaning: SignatureMeaning) => Promise<void>) {
  render(
    <I18nextProvider i18n={i18n}>
      <AntApp>
        <SignatureDialog title="Electronic signature" onSign={onSign} onClose={vi.fn()}>
          <p>Demographics</p>
        </SignatureDialog>
      </AntApp>
    </I18nextProvider>,
  );
}

describe('SignatureDialog', { timeout: 60_000 }, () => {
  it('shows the meaning and the signer, asks for the password and sends only its SHA-256', async () => {
    const onSign = vi.fn((_pw: string, _meaning: SignatureMeaning) => Promise.resolve());
    renderDialog(onSign);
    expect(screen.getByTestId('signature-meaning').textContent).toMatch(
      /^I am the investigator of this study\./,
    );
    expect(screen.getByTestId('signature-signer').textContent).toBe('Dr. Ivy Investigator (pi)');
    fireEvent.click(screen.getByTestId('signature-ok'));
    expect(await screen.findByText('Please enter your password to sign.')).toBeTruthy();
    expect(onSign).not.toHaveBeenCalled();
    fireEvent.change(screen.getByTestId('signature-password'), { target: { value: 'Demo@123456' } });
    fireEvent.click(screen.getByTestId('signature-ok'));
    await waitFor(() => expect(onSign).toHaveBeenCalledWith(expect.any(String), 'investigatorApproval'));
    expect(onSign.mock.calls[0]![0]).toBe(await sha256Hex('Demo@123456'));
  });

  it("shows the server's answer to a wrong password and clears the field", async () => {
    renderDialog(() =>
      Promise.reject(new Error('Wrong password; 4 attempts left before the account is locked')),
    );
    fireEvent.change(screen.getByTestId('signature-password'), { target: { value: 'nope' } });
    fireEvent.click(screen.getByTestId('signature-ok'));
    expect((await screen.findByTestId('signature-error')).textContent).toContain('4 attempts left');
    expect(screen.getByTestId<HTMLInputElement>('signature-password').value).toBe('');
  });
});
