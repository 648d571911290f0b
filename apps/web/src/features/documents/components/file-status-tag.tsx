import { Tag } from 'antd';
import { LoadingOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { STATUS_COLOR } from '../document-logic';

/** A source file's status (spec §4 table), translated and coloured; a spinner while it is de-identified. */
export function FileStatusTag({ status }: { status: number }) {
  const { t } = useTranslation('documents');
  return (
    <Tag color={STATUS_COLOR[status] ?? 'default'} icon={status === 0 ? <LoadingOutlined /> : null} data-testid="file-status">
      {t(`status.${status}`, { defaultValue: String(status) })}
    </Tag>
  );
}
