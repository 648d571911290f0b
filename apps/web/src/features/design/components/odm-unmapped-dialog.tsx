import { useMemo, useState } from 'react';
import { Alert, Button, Input, Modal, Select, Space, Table } from 'antd';
import type { TableColumnsType } from 'antd';
import { useTranslation } from 'react-i18next';
import type { DesignImportResult } from '@esource/shared';
import { usePaging } from '../../../components/paged-table';
import { tablePagination } from '../../../lib/pagination';
import { saveBlob } from '../../../lib/download';

type Unmapped = NonNullable<DesignImportResult['unmapped']>[number];

/** A CSV cell: quoted, inner quotes doubled; a leading = + - @ neutralised so a spreadsheet does not run it. */
function csvCell(v: string | number): string {
  const s = String(v);
  return `"${(/^[=+\-@]/.test(s) ? `'${s}` : s).replace(/"/g, '""')}"`;
}

/**
 * What a CDISC ODM import could not carry into the design (line of the file, OID, element, reason), listed after the
 * import so that nothing is dropped silently: filtered by reason or text, sorted by line, paged 50/100/200, and
 * downloadable as CSV.
 */
export function OdmUnmappedDialog({
  version,
  onClose,
}: {
  version: DesignImportResult | null;
  onClose: () => void;
}) {
  const { t } = useTranslation('design');
  const rows = useMemo(() => version?.unmapped ?? [], [version]);
  const [reason, setReason] = useState<string | undefined>();
  const [text, setText] = useState('');
  const paging = usePaging();
  const reasons = useMemo(() => [...new Set(rows.map((r) => r.reason))].sort(), [rows]);
  const shown = useMemo(() => {
    const q = text.trim().toLowerCase();
    return rows.filter(
      (r) =>
        (!reason || r.reason === reason) &&
        (!q || r.oid.toLowerCase().includes(q) || r.message.toLowerCase().includes(q)),
    );
  }, [rows, reason, text]);

  const columns: TableColumnsType<Unmapped> = [
    {
      title: t('odmUnmapped.line'),
      dataIndex: 'line',
      width: 90,
      sorter: (a, b) => a.line - b.line,
      defaultSortOrder: 'ascend',
    },
    {
      title: t('odmUnmapped.oid'),
      dataIndex: 'oid',
      width: 220,
      ellipsis: true,
      sorter: (a, b) => a.oid.localeCompare(b.oid),
    },
    { title: t('odmUnmapped.message'), dataIndex: 'message' },
  ];

  const download = () => {
    const lines = [
      [t('odmUnmapped.line'), t('odmUnmapped.oid'), t('odmUnmapped.what'), t('odmUnmapped.message')]
        .map(csvCell)
        .join(','),
      ...shown.map((r) => [r.line, r.oid, r.what, r.message].map(csvCell).join(',')),
    ];
    saveBlob(
      new Blob([`\uFEFF${lines.join('\r\n')}\r\n`], { type: 'text/csv;charset=utf-8' }),
      `${version?.name ?? 'odm'}-unmapped.csv`,
    );
  };

  return (
    <Modal
      open={version !== null}
      title={t('odmUnmapped.title', { name: version?.name ?? '' })}
      width={920}
      onCancel={onClose}
      footer={
        <Space>
          <Button onClick={download} disabled={!shown.length} data-testid="odm-unmapped-download">
            {t('odmUnmapped.download')}
          </Button>
          <Button type="primary" onClick={onClose} data-testid="odm-unmapped-close">
            {t('odmUnmapped.close')}
          </Button>
        </Space>
      }
      destroyOnHidden
    >
      <div data-testid="odm-unmapped">
        <Alert
          type="warning"
          showIcon
          style={{ marginBottom: 12 }}
          title={t('odmUnmapped.summary', { count: rows.length })}
        />
        <Space wrap style={{ marginBottom: 12 }}>
          <Select
            allowClear
            style={{ width: 260 }}
            placeholder={t('odmUnmapped.allReasons')}
            value={reason}
            onChange={(v) => {
              setReason(v);
              paging.first();
            }}
            options={reasons.map((r) => ({
              value: r,
              label: t(`odmUnmapped.reasons.${r}`, { defaultValue: r }),
            }))}
            data-testid="odm-unmapped-reason"
          />
          <Input.Search
            allowClear
            style={{ width: 260 }}
            placeholder={t('odmUnmapped.search')}
            onSearch={(v) => {
              setText(v);
              paging.first();
            }}
            data-testid="odm-unmapped-search"
          />
        </Space>
        <Table<Unmapped>
          size="small"
          rowKey={(r) => `${r.line}|${r.oid}|${r.what}|${r.reason}|${r.message}`}
          columns={columns}
          dataSource={shown}
          locale={{ emptyText: t('odmUnmapped.empty') }}
          scroll={{ y: 420 }}
          pagination={tablePagination({
            page: paging.pageNumber,
            pageSize: paging.pageSize,
            total: shown.length,
            showTotal: (n) => t('odmUnmapped.total', { count: n }),
            onChange: paging.onPage,
          })}
        />
      </div>
    </Modal>
  );
}
