import { useEffect, useState } from 'react';
import { Modal, Select, Table, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { EdcMappingRow } from '@esource/shared';
import { normalValueMap, type TargetItemChoice } from '../lib/mapping-edit';

/**
 * A choice item's options → the EDC item's codes: each of our options gets one of the codes the EDC offers. An option
 * left empty is sent as its own value (or its export code), which the EDC must then know.
 */
export function ValueMapEditor({
  row,
  target,
  onClose,
  onChange,
}: {
  row: EdcMappingRow | null;
  target: TargetItemChoice | undefined;
  onClose: () => void;
  onChange: (m: Record<string, string> | null) => void;
}) {
  const { t } = useTranslation('edc');
  const [draft, setDraft] = useState<Record<string, string>>({});
  useEffect(() => setDraft({ ...(row?.valueMap ?? {}) }), [row]);
  const codes = target?.codes ?? [];
  const known = new Set(codes.map((c) => c.value));
  return (
    <Modal
      open={row !== null}
      title={row ? t('codes.title', { item: row.label, target: row.target ?? '' }) : ''}
      onCancel={onClose}
      onOk={() => {
        onChange(normalValueMap(draft));
        onClose();
      }}
      okText={t('codes.apply')}
      cancelText={t('cancel')}
      width={680}
      destroyOnHidden
      okButtonProps={{ 'data-testid': 'edc-codes-apply' }}
    >
      <div data-testid="edc-codes-editor">
        <Typography.Paragraph type="secondary">{t('codes.hint')}</Typography.Paragraph>
        <Table
          size="small"
          rowKey="value"
          pagination={false}
          dataSource={row?.options ?? []}
          columns={[
            {
              title: t('codes.ours'),
              key: 'ours',
              render: (_: unknown, o: { value: string; label: string }) => (
                <span>
                  {o.label} <Typography.Text type="secondary">({o.value})</Typography.Text>
                </span>
              ),
            },
            {
              title: t('codes.theirs'),
              key: 'theirs',
              width: 320,
              render: (_: unknown, o: { value: string; label: string }) => {
                const v = draft[o.value];
                return (
                  <Select
                    allowClear
                    showSearch={{ optionFilterProp: 'label' }}
                    style={{ width: '100%' }}
                    value={v || undefined}
                    status={v && !known.has(v) ? 'error' : undefined}
                    placeholder={
                      known.has(o.value) ? t('codes.sameValue', { value: o.value }) : t('codes.pick')
                    }
                    onChange={(c?: string) => setDraft((d) => ({ ...d, [o.value]: c ?? '' }))}
                    options={codes.map((c) => ({
                      value: c.value,
                      label: c.label ? `${c.value} — ${c.label}` : c.value,
                    }))}
                    data-testid={`edc-code-${o.value}`}
                  />
                );
              },
            },
          ]}
        />
      </div>
    </Modal>
  );
}
