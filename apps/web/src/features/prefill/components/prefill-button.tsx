import { Badge, Button } from 'antd';
import { CloudDownloadOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { usePms, useSession } from '../../session';
import { prefillVisitsQuery, type PrefillKey } from '../api/prefill-api';

/**
 * The eCRF drawer's 'Pre-fill from source' toggle, with the number of candidates waiting for a decision on this form
 * (/crf/prefill/visit/list); nothing for a user who may not see pre-fill candidates.
 */
export function PrefillButton({ crfKey, open, onToggle }: { crfKey: PrefillKey; open: boolean; onToggle: () => void }) {
  const { t } = useTranslation('prefill');
  const has = usePms();
  const allowed = has('crf:prefill:query');
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const visits = useQuery({ ...prefillVisitsQuery({ env, projectId }, crfKey.ptsId), enabled: allowed && projectId !== null });
  if (!allowed) return null;
  const waiting =
    visits.data
      ?.find((v) => v.visitId === crfKey.visitId && v.unscheduledId === crfKey.unscheduledId)
      ?.forms.find((f) => f.formId === crfKey.formId)?.waiting ?? 0;
  return (
    <Badge count={open ? 0 : waiting} size="small" title={t('waiting', { count: waiting })}>
      <Button
        icon={<CloudDownloadOutlined />}
        type={open ? 'primary' : 'default'}
        ghost={open}
        onClick={onToggle}
        aria-pressed={open}
        data-testid="prefill-toggle"
      >
        {t('button')}
      </Button>
    </Badge>
  );
}
