import { Select } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { useSession } from '../../session';
import { mySitesQuery } from '../api/subjects-api';

/** A list page's site filter: the caller's sites; nothing to choose (so not shown) with one site only. */
export function SiteFilter({ value, onChange, placeholder, testId }: { value: number | undefined; onChange: (siteId: number | undefined) => void; placeholder: string; testId?: string }) {
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const sites = useQuery(mySitesQuery({ env, projectId }));
  if ((sites.data?.length ?? 0) <= 1) return null;
  return (
    <Select
      allowClear
      value={value}
      onChange={(v?: number) => onChange(v)}
      placeholder={placeholder}
      style={{ width: 200 }}
      options={(sites.data ?? []).map((s) => ({ value: s.id, label: `${s.siteNo} ${s.name}` }))}
      data-testid={testId}
    />
  );
}
