import { useEffect, useState } from 'react';
import { Select, Spin, Tag, Typography } from 'antd';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { DictionaryKind, DictionarySearchHit } from '@esource/shared';
import { usePms, useSession } from '../../session';
import { searchQuery, type SearchRoute } from '../api/dictionaries-api';

/** A coded value: the dictionary code and the term shown with it. */
export interface DictionaryValue {
  code: string;
  term: string;
}

export interface DictionaryPickerProps {
  kind: DictionaryKind;
  value?: DictionaryValue | null;
  onChange?: (v: DictionaryValue | null) => void;
  disabled?: boolean;
  placeholder?: string;
  /** set by Form.Item (label focus) */
  id?: string;
  'data-testid'?: string;
}

function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const id = setTimeout(() => setV(value), ms);
    return () => clearTimeout(id);
  }, [value, ms]);
  return v;
}

/**
 * The route the caller may search: inside a project a safety reviewer (clinical:judge:query) searches through the
 * project's route; an administrator (system:dictionary:query) through the system one.
 */
function useSearchRoute(): SearchRoute {
  const has = usePms();
  const inProject = useSession((s) => s.project !== null);
  return inProject && has('clinical:judge:query') ? 'project' : 'system';
}

/**
 * A coding field (issue 13 item 5): an antd Select that searches the kind's active dictionary as the user types
 * (debounced; code, term, synonym or pinyin initials), each option showing the code, the term in the UI language
 * first with the other language beside it, and the synonym that matched. Works inside Form.Item (value / onChange);
 * clearing gives null. The chosen term is the UI language's (the other when it has none).
 */
export function DictionaryPicker({
  kind,
  value,
  onChange,
  disabled,
  placeholder,
  id,
  'data-testid': testId,
}: DictionaryPickerProps) {
  const { t, i18n } = useTranslation('dictionaries');
  const zhFirst = i18n.language !== 'en_US';
  const route = useSearchRoute();
  const [text, setText] = useState('');
  const q = useDebounced(text.trim(), 250);
  const res = useQuery(searchQuery(route, kind, q));
  const hits = q ? (res.data ?? []) : [];
  const termOf = (h: Pick<DictionarySearchHit, 'termZh' | 'termEn'>) =>
    (zhFirst ? (h.termZh ?? h.termEn) : (h.termEn ?? h.termZh)) ?? '';
  const otherOf = (h: Pick<DictionarySearchHit, 'termZh' | 'termEn'>) =>
    zhFirst ? (h.termZh ? h.termEn : null) : h.termEn ? h.termZh : null;

  const options = hits.map((h) => ({
    value: h.code,
    hit: h,
    label: (
      <div
        data-testid={`dictionary-option-${h.code}`}
        style={{ display: 'flex', gap: 8, alignItems: 'baseline', whiteSpace: 'normal', lineHeight: 1.4 }}
      >
        <Typography.Text strong style={{ fontFamily: 'monospace', flex: '0 0 auto' }}>
          {h.code}
        </Typography.Text>
        <div style={{ flex: 1, minWidth: 0 }}>
          <span>{termOf(h)}</span>
          {h.synonym ? (
            <Tag color="blue" style={{ marginInlineStart: 6 }}>
              {t('picker.synonym', { synonym: h.synonym })}
            </Tag>
          ) : h.match === 'pinyin' ? (
            <Tag style={{ marginInlineStart: 6 }}>{t('picker.pinyin')}</Tag>
          ) : null}
          {otherOf(h) ? (
            <div>
              <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                {otherOf(h)}
              </Typography.Text>
            </div>
          ) : null}
        </div>
      </div>
    ),
  }));

  const notFound = !q ? (
    <Typography.Text type="secondary">{t('picker.typeToSearch')}</Typography.Text>
  ) : res.isFetching ? (
    <div style={{ textAlign: 'center', padding: 8 }}>
      <Spin size="small" />
    </div>
  ) : res.isError ? (
    <Typography.Text type="danger">{t('picker.failed', { message: res.error.message })}</Typography.Text>
  ) : (
    <Typography.Text type="secondary">{t('picker.nothing')}</Typography.Text>
  );

  return (
    <Select<string, (typeof options)[number]>
      id={id}
      allowClear
      disabled={disabled}
      value={value?.code ?? null}
      placeholder={placeholder ?? t('picker.placeholder', { kind: t(`kindOne.${kind}`) })}
      showSearch={{ filterOption: false, onSearch: setText, searchValue: text, autoClearSearchValue: true }}
      loading={res.isFetching}
      options={options}
      notFoundContent={notFound}
      // the chosen value shows as code and term whatever the options of the current search are
      labelRender={() => (value ? `${value.code} ${value.term}` : null)}
      onChange={(code, option) => {
        setText('');
        if (!code || !option || Array.isArray(option)) {
          onChange?.(null);
          return;
        }
        onChange?.({ code, term: termOf(option.hit) });
      }}
      style={{ width: '100%' }}
      data-testid={testId ?? `dictionary-picker-${kind}`}
    />
  );
}
