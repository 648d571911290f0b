import { useState } from 'react';
import { Alert, Button, Form, Input, Modal, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { LimitedInput } from '../../../components/limited-input';
import type { FieldComponent, ItemValues } from '@esource/shared';
import { labelFor } from '../../crf-renderer';
import { valueText, type StoredValues } from '../ecrf-logic';

export interface ChangeReasonDialogProps {
  /** changed saved items that need a reason (cleared ones included) */
  need: readonly string[];
  /** loaded values the save clears because a display condition now hides their item */
  cleared: readonly string[];
  stored: StoredValues;
  values: ItemValues;
  fieldOf: (variable: string) => FieldComponent | undefined;
  language: string;
  busy: boolean;
  onCancel: () => void;
  onOk: (reasons: Record<string, string>) => void;
}

/**
 * Before a save: every changed saved value with old → new and a reason for each, and — listed apart — every
 * saved value the change clears because a display condition now hides its item, each with its own reason
 * (one reason can be copied to all of them). Nothing is cleared without the user seeing it.
 */
export function ChangeReasonDialog({ need, cleared, stored, values, fieldOf, language, busy, onCancel, onOk }: ChangeReasonDialogProps) {
  const { t } = useTranslation('ecrf');
  const [reasons, setReasons] = useState<Record<string, string>>({});
  const needs = new Set(need);
  const changedOnly = need.filter((v) => !cleared.includes(v));
  const clearedNeeding = cleared.filter((v) => needs.has(v));
  const [shared, setShared] = useState('');

  const row = (v: string, isCleared: boolean) => {
    const f = fieldOf(v);
    const options = f?.options?.map((o) => ({ value: o.value, label: labelFor(o, language) }));
    const label = (
      <span>
        {f ? labelFor(f, language) : v}:{' '}
        <Typography.Text delete type="secondary">
          {valueText(stored[v]?.value, options)}
        </Typography.Text>{' '}
        → <strong>{isCleared ? t('reason.clearedValue') : valueText(values[v], options)}</strong>
      </span>
    );
    if (!needs.has(v))
      return (
        <li key={v} data-testid={`cleared-${v}`}>
          {label} <Typography.Text type="secondary">({t('reason.draftNoReason')})</Typography.Text>
        </li>
      );
    return (
      <Form.Item key={v} required label={label} data-testid={isCleared ? `cleared-${v}` : undefined}>
        <LimitedInput
          max={500}
          value={reasons[v] ?? ''}
          onChange={(e) => setReasons((r) => ({ ...r, [v]: e.target.value }))}
          placeholder={isCleared ? t('reason.clearedPlaceholder') : t('reason.placeholder')}
          data-testid={`reason-${v}`}
        />
      </Form.Item>
    );
  };

  return (
    <Modal
      open
      title={t(need.length ? 'reason.title' : 'reason.clearedTitle')}
      okText={t(need.length ? 'reason.ok' : 'reason.okCleared')}
      cancelText={t('reason.cancel')}
      width={680}
      confirmLoading={busy}
      okButtonProps={{ disabled: need.some((v) => !reasons[v]?.trim()), 'data-testid': 'reason-ok' }}
      onCancel={onCancel}
      onOk={() => onOk(reasons)}
    >
      <Form layout="vertical" data-testid="reason-dialog">
        {changedOnly.length ? (
          <>
            <Typography.Paragraph type="secondary">{t('reason.hint')}</Typography.Paragraph>
            {changedOnly.map((v) => row(v, false))}
          </>
        ) : null}
        {cleared.length ? (
          <div data-testid="reason-cleared">
            <Alert type="warning" showIcon style={{ marginBottom: 12 }} title={t('reason.clearedHint', { count: cleared.length })} />
            {clearedNeeding.length > 1 ? (
              <Form.Item label={t('reason.sharedLabel')}>
                <Input.Search
                  maxLength={500}
                  value={shared}
                  onChange={(e) => setShared(e.target.value)}
                  placeholder={t('reason.clearedPlaceholder')}
                  enterButton={
                    <Button data-testid="reason-apply-all" disabled={!shared.trim()}>
                      {t('reason.applyAll')}
                    </Button>
                  }
                  onSearch={(text) => text.trim() && setReasons((r) => ({ ...r, ...Object.fromEntries(clearedNeeding.map((v) => [v, text])) }))}
                  data-testid="reason-shared"
                />
              </Form.Item>
            ) : null}
            {cleared.filter((v) => needs.has(v)).map((v) => row(v, true))}
            {cleared.some((v) => !needs.has(v)) ? <ul className="ecrf-cleared-list">{cleared.filter((v) => !needs.has(v)).map((v) => row(v, true))}</ul> : null}
          </div>
        ) : null}
      </Form>
    </Modal>
  );
}
