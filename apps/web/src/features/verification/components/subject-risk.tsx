import { useState } from 'react';
import { App, Form, Input, Modal, Radio, Space, Tag, Tooltip, Typography } from 'antd';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { effectiveRiskLevel, SDV_SHARE } from '@esource/shared';
import { afterVerificationChange, verificationApi } from '../api/verification-api';

export const RISK_COLOR: Record<number, string> = { 1: 'red', 2: 'orange', 3: 'green' };

type SubjectRisk = { ptsId: number; ptsNo: string; riskLevel: number | null; siteRiskLevel: number };

/** A subject's effective risk level (its own, else its site's), saying which. */
export function SubjectRiskTag({
  subject,
  testId = 'subject-risk',
}: {
  subject: SubjectRisk;
  testId?: string;
}) {
  const { t } = useTranslation('verification');
  const level = effectiveRiskLevel(subject);
  const own = subject.riskLevel !== null;
  return (
    <Tooltip
      title={t(own ? 'subjectRisk.ownHint' : 'subjectRisk.inheritedHint', { share: SDV_SHARE[level] })}
    >
      <Tag color={RISK_COLOR[level]} data-testid={testId} data-level={level} data-own={own ? '1' : '0'}>
        {t(own ? 'subjectRisk.tagOwn' : 'subjectRisk.tagInherited', { level: t(`riskShort.${level}`) })}
      </Tag>
    </Tooltip>
  );
}

/**
 * Sets a subject's own risk level, or returns it to its site's (research:page:update, as for sites): the share of
 * the subject's forms that need SDV. The reason is optional and kept in the audit trail.
 */
export function SubjectRiskDialog({ subject, onClose }: { subject: SubjectRisk; onClose: () => void }) {
  const { t } = useTranslation('verification');
  const { message } = App.useApp();
  const qc = useQueryClient();
  /** 0: inherit the site's */
  const [level, setLevel] = useState<number>(subject.riskLevel ?? 0);
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async () => {
    setBusy(true);
    setError(null);
    try {
      await verificationApi.setSubjectRisk(
        subject.ptsId,
        level === 0 ? null : level,
        reason.trim() || undefined,
      );
      void message.success(t('subjectRisk.saved', { no: subject.ptsNo }));
      await Promise.all([qc.invalidateQueries({ queryKey: ['subjects'] }), afterVerificationChange(qc)]);
      onClose();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  const site = subject.siteRiskLevel;
  return (
    <Modal
      open
      title={t('subjectRisk.title', { no: subject.ptsNo })}
      okText={t('subjectRisk.save')}
      cancelText={t('visit.cancel')}
      okButtonProps={{ disabled: level === (subject.riskLevel ?? 0), 'data-testid': 'subject-risk-ok' }}
      onOk={() => void submit()}
      onCancel={onClose}
      confirmLoading={busy}
      destroyOnHidden
    >
      <Typography.Paragraph type="secondary">{t('subjectRisk.intro')}</Typography.Paragraph>
      <Form layout="vertical">
        <Form.Item label={t('risk.level')}>
          <Radio.Group
            value={level}
            onChange={(e) => setLevel(Number(e.target.value))}
            data-testid="subject-risk-level"
          >
            <Space orientation="vertical">
              <Radio value={0}>
                <span data-testid="subject-risk-0">
                  {t('subjectRisk.inherit', { level: t(`riskShort.${site}`), share: SDV_SHARE[site] })}
                </span>
              </Radio>
              {[1, 2, 3].map((l) => (
                <Radio key={l} value={l}>
                  <span data-testid={`subject-risk-${l}`}>{t(`risk.${l}`, { share: SDV_SHARE[l] })}</span>
                </Radio>
              ))}
            </Space>
          </Radio.Group>
        </Form.Item>
        <Form.Item label={t('subjectRisk.reason')} validateStatus={error ? 'error' : undefined} help={error}>
          <Input.TextArea
            rows={2}
            maxLength={500}
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            data-testid="subject-risk-reason"
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}
