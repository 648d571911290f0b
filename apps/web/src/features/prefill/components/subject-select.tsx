import { useState, type CSSProperties } from 'react';
import { Select } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { SubjectRow } from '@esource/shared';
import { useSession } from '../../session';
import { subjectPageQuery } from '../../subjects';

export interface SubjectSelectProps {
  value: number | undefined;
  onChange: (ptsId: number | undefined, subject: SubjectRow | undefined) => void;
  style?: CSSProperties;
  testId?: string;
}

/** A subject chosen by number, from the subjects the user may see (the server lists only those of their sites). */
export function SubjectSelect({ value, onChange, style, testId = 'subject-select' }: SubjectSelectProps) {
  const { t } = useTranslation('prefill');
  const env = useSession((s) => s.env);
  const projectId = useSession((s) => s.project?.id ?? null);
  const [keyword, setKeyword] = useState('');
  const q = useQuery(subjectPageQuery({ env, projectId }, keyword ? { keyword } : {}, 1, 50, false));
  const rows = q.data?.content ?? [];
  return (
    <Select<number>
      showSearch={{ filterOption: false, onSearch: (v) => setKeyword(v.trim()) }}
      allowClear
      value={value}
      placeholder={t('pickSubject')}
      loading={q.isFetching}
      notFoundContent={q.isError ? q.error.message : t('noSubjects')}
      style={{ width: 220, ...style }}
      onChange={(v) => onChange(v, rows.find((r) => r.ptsId === v))}
      options={rows.map((r) => ({ value: r.ptsId, label: `${r.ptsNo}${r.siteName ? ` · ${r.siteName}` : ''}` }))}
      data-testid={testId}
    />
  );
}
