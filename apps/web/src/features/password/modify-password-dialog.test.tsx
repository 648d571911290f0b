import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { App as AntApp } from 'antd';
import { I18nextProvider } from 'react-i18next';
import { initI18n, i18n } from '../../i18n/i18n';
import { configureApi } from '../../lib/api-client';
import { sha256Hex } from '../../lib/sha256';
import ModifyPasswordDialog from './modify-password-dialog';
import { validateConfirmPassword, validateNewPassword } from './password-validation';

beforeAll(() => {
  initI18n('en_US');
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('password rules (spec §5)', () => {
  it('checks required, strength < 6, then the 8–30 / digit+letter+special rule', () => {
    expect(validateNewPassword('')).toBe('required');
    expect(validateNewPassword('a1!')).toBe('weak');
    expect(validateNewPassword('abcdefgh')).toBe('rule');
    expect(validateNewPassword('abcdefg1')).toBe('rule');
    expect(validateNewPassword('abc 1234!')).toBe('rule');
    expect(validateNewPassword('Abcdefg1!')).toBeNull();
    expect(validateNewPassword(`Ab1!${'x'.repeat(27)}`)).toBe('rule');
    expect(validateConfirmPassword('a', '')).toBe('confirmRequired');
    expect(validateConfirmPassword('a', 'b')).toBe('mismatch');
    expect(validateConfirmPassword('a', 'a')).toBeNull();
  });
});

function renderDialog(onClose = vi.fn()) {
  render(
    <I18nextProvider i18n={i18n}>
      <AntApp>
        <ModifyPasswordDialog open userId={5} onClose={onClose} />
      </AntApp>
    </I18nextProvider>,
  );
  return onClose;
}

const newPwd = () => screen.getByTestId('new-password');
const confirmPwd = () => screen.getByTestId('confirm-password');
const ok = () => screen.getByRole('button', { name: 'OK' });

describe('Modify Password dialog', { timeout: 60_000 }, () => {
  it('shows every validation message and the hint', async () => {
    renderDialog();
    expect(screen.getByTestId('password-hint').textContent).toBe(
      "Please enter at least 8 characters. Please don't use passwords that are easy to guess.",
    );
    fireEvent.click(ok());
    expect(await screen.findByText('Please enter a new password.')).toBeTruthy();
    expect(await screen.findByText('Please confirm the new password.')).toBeTruthy();
    fireEvent.change(newPwd(), { target: { value: 'a1!' } });
    expect(await screen.findByText('Password strength is not enough.')).toBeTruthy();
    fireEvent.change(newPwd(), { target: { value: 'abcdefghij' } });
    expect(
      await screen.findByText('At least 8 digits including numbers, English letters and special symbols.'),
    ).toBeTruthy();
    fireEvent.change(newPwd(), { target: { value: 'Abcdef12!' } });
    fireEvent.change(confirmPwd(), { target: { value: 'Abcdef12?' } });
    expect(await screen.findByText('The two passwords you entered do not match.')).toBeTruthy();
  });

  it('moves the meter through its levels (bar = 33 × level)', async () => {
    renderDialog();
    const meter = () => screen.getByTestId('password-meter');
    expect(meter().dataset.level).toBe('0');
    fireEvent.change(newPwd(), { target: { value: 'abc' } });
    await waitFor(() => expect(meter().dataset.level).toBe('0'));
    fireEvent.change(newPwd(), { target: { value: 'abcdefgh' } });
    await waitFor(() => expect(meter().dataset.level).toBe('invalid'));
    expect(screen.getByTestId('password-level').textContent).toBe('Invalid');
    fireEvent.change(newPwd(), { target: { value: 'abc 1234!' } });
    await waitFor(() => expect(meter().dataset.level).toBe('invalid'));
    fireEvent.change(newPwd(), { target: { value: 'abcdefg1!' } });
    await waitFor(() => expect(meter().dataset.level).toBe('1'));
    expect(meter().dataset.percent).toBe('33');
    expect(screen.getByTestId('password-level').textContent).toBe('Low');
    fireEvent.change(newPwd(), { target: { value: 'abcdef12!' } });
    await waitFor(() => expect(meter().dataset.level).toBe('2'));
    expect(meter().dataset.percent).toBe('66');
    fireEvent.change(newPwd(), { target: { value: 'Abcdef12!@' } });
    await waitFor(() => expect(meter().dataset.level).toBe('3'));
    expect(meter().dataset.percent).toBe('99');
    expect(screen.getByTestId('password-level').textContent).toBe('Strong');
  });

  it('asks for the current password', async () => {
    renderDialog();
    fireEvent.click(ok());
    expect(await screen.findByText('Please enter your current password.')).toBeTruthy();
  });

  it('sends the SHA-256 digests of the current and new password and the user id, then says so', async () => {
    const bodies: string[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (_u: string, init: RequestInit) => {
        bodies.push(typeof init.body === 'string' ? init.body : '');
        return new Response(JSON.stringify({ code: 200, status: '1', data: null }), {
          headers: { 'content-type': 'application/json' },
        });
      }),
    );
    configureApi({ headers: () => ({}) });
    const onClose = renderDialog();
    fireEvent.change(screen.getByTestId('current-password'), { target: { value: 'Demo@123456' } });
    fireEvent.change(newPwd(), { target: { value: 'Abcdef12!@' } });
    fireEvent.change(confirmPwd(), { target: { value: 'Abcdef12!@' } });
    fireEvent.click(ok());
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    const p = new URLSearchParams(bodies[0]);
    expect(p.get('newPwd')).toBe(await sha256Hex('Abcdef12!@'));
    expect(p.get('oldPwd')).toBe(await sha256Hex('Demo@123456'));
    expect(p.get('userId')).toBe('5');
    expect(await screen.findByText('Password changed successfully.')).toBeTruthy();
  });
});
