import { useEffect, useMemo, useState } from 'react';
import {
  Alert,
  App,
  Badge,
  Button,
  Empty,
  Input,
  Result,
  Select,
  Space,
  Switch,
  Table,
  Tag,
  Tooltip,
  Typography,
} from 'antd';
import type { TableColumnsType } from 'antd';
import {
  CloudDownloadOutlined,
  SaveOutlined,
  ThunderboltOutlined,
  UndoOutlined,
  WarningFilled,
} from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { EdcConfigView, EdcMappingProblem, EdcMappingRow, EdcMappingView } from '@esource/shared';
import { edcApi, edcConfigQuery, edcItemListQuery, edcMappingQuery, edcVersionsQuery } from '../api/edc-api';
import {
  applyEdits,
  changedRows,
  itemChoiceValue,
  parseItemChoice,
  problemsByRow,
  pruneEdits,
  rowKey,
  sections,
  targetChoices,
  targetItemOf,
  withEdit,
  type MappingEdits,
} from '../lib/mapping-edit';
import { ProblemList } from './problem-list';
import { fmtTime } from './sync-bits';
import { useUnsavedGuard } from './use-unsaved-guard';
import { ValueMapEditor } from './value-map-editor';

type Scope = { env: string; projectId: number | null };
interface TreeRow {
  key: string;
  row: EdcMappingRow;
  children?: TreeRow[];
}

function RowProblems({ problems }: { problems: EdcMappingProblem[] | undefined }) {
  if (!problems?.length) return null;
  return (
    <Tooltip
      title={
        <ul style={{ margin: 0, paddingInlineStart: 16 }}>
          {problems.map((p, i) => (
            <li key={i}>{p.message}</li>
          ))}
        </ul>
      }
    >
      <WarningFilled
        style={{ color: '#ff4d4f', marginInlineStart: 6 }}
        aria-label={problems.map((p) => p.message).join('; ')}
      />
    </Tooltip>
  );
}

/**
 * The EDC mapping of a design version (edc:sync:config): visits → EDC events, forms → EDC forms, items → EDC items of
 * the mapped form, option values → the EDC item's codes. The targets come from the EDC's item list (read again on
 * request); auto-map proposes what matches by code; Save sends only the rows changed; leaving with unsaved changes
 * asks first. The problems listed are those of the saved mapping: they block a sync.
 */
export function MappingTab({
  scope,
  config,
  onDirty,
}: {
  scope: Scope;
  config: EdcConfigView;
  onDirty: (dirty: boolean) => void;
}) {
  const { t } = useTranslation('edc');
  const { message } = App.useApp();
  const qc = useQueryClient();
  const versions = useQuery(edcVersionsQuery(scope));
  const [versionId, setVersionId] = useState<number | null>(null);
  const itemList = useQuery(edcItemListQuery(scope, config.targetItemsAt !== null));
  const mapping = useQuery(edcMappingQuery(scope, versionId));
  const [edits, setEdits] = useState<MappingEdits>({});
  const [busy, setBusy] = useState<'read' | 'auto' | 'save' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [search, setSearch] = useState('');
  const [onlyOpen, setOnlyOpen] = useState(false);
  const [codesOf, setCodesOf] = useState<string | null>(null);

  // the version that collects data by default, else the newest
  useEffect(() => {
    if (versionId !== null || !versions.data?.length) return;
    const v = versions.data.find((x) => x.collecting) ?? versions.data[versions.data.length - 1]!;
    setVersionId(v.id);
  }, [versions.data, versionId]);

  const rows = useMemo(() => mapping.data?.rows ?? [], [mapping.data]);
  const shown = useMemo(() => applyEdits(rows, edits), [rows, edits]);
  const changes = useMemo(() => changedRows(rows, edits), [rows, edits]);
  const dirty = changes.length > 0;
  const guard = useUnsavedGuard(dirty);
  useEffect(() => onDirty(dirty), [dirty, onDirty]);
  const choices = useMemo(() => targetChoices(itemList.data?.items), [itemList.data]);
  const problems = useMemo(() => problemsByRow(mapping.data?.problems ?? []), [mapping.data]);
  const byKey = useMemo(() => new Map(shown.map((r) => [rowKey(r), r])), [shown]);
  const formTarget = (formCode: string | null) =>
    formCode ? (byKey.get(`form:${formCode}`)?.target ?? null) : null;

  const setView = (v: EdcMappingView) => {
    qc.setQueryData(edcMappingQuery(scope, v.versionId).queryKey, v);
    setEdits((e) => pruneEdits(v.rows, e));
  };
  const edit = (
    r: EdcMappingRow,
    patch: Partial<Pick<EdcMappingRow, 'target' | 'targetGroup' | 'valueMap'>>,
  ) => {
    const cur = byKey.get(rowKey(r)) ?? r;
    setEdits((e) =>
      withEdit(rows, e, rowKey(r), {
        target: cur.target,
        targetGroup: cur.targetGroup,
        valueMap: cur.valueMap,
        ...patch,
      }),
    );
  };
  const act = async (what: 'read' | 'auto' | 'save', fn: () => Promise<void>) => {
    setBusy(what);
    setError(null);
    try {
      await fn();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(null);
    }
  };
  const readItems = () =>
    act('read', async () => {
      const list = await edcApi.itemList(true);
      qc.setQueryData(edcItemListQuery(scope, true).queryKey, list);
      await qc.invalidateQueries({ queryKey: edcConfigQuery(scope).queryKey });
      if (versionId !== null) setView(await edcApi.mapping(versionId));
      void message.success(t('mapping.itemsRead', { count: list.items.length }));
    });
  const autoMap = () =>
    act('auto', async () => {
      const v = await edcApi.autoMap(versionId!);
      setView(v);
      void message.success(t('mapping.autoDone'));
    });
  const save = () =>
    act('save', async () => {
      const v = await edcApi.saveMapping(versionId!, changes);
      setEdits({});
      qc.setQueryData(edcMappingQuery(scope, v.versionId).queryKey, v);
      void message.success(t('mapping.saved', { count: changes.length }));
    });

  const needle = search.trim().toLowerCase();
  const matches = (r: EdcMappingRow) =>
    !needle ||
    r.label.toLowerCase().includes(needle) ||
    r.localKey.toLowerCase().includes(needle) ||
    (r.target ?? '').toLowerCase().includes(needle);
  const open = (r: EdcMappingRow) => !onlyOpen || !r.target || problems.has(rowKey(r));
  const { events, forms } = sections(shown);
  const eventRows = events.filter((r) => matches(r) && open(r));
  const formTree: TreeRow[] = forms.flatMap(({ form, items }) => {
    const kids = items
      .filter((r) => (matches(r) || matches(form)) && open(r))
      .map((r) => ({ key: rowKey(r), row: r }));
    if (!kids.length && !(matches(form) && open(form))) return [];
    return [{ key: rowKey(form), row: form, ...(kids.length ? { children: kids } : {}) }];
  });
  const changed = new Set(changes.map((c) => `${c.level}:${c.localKey}`));

  const ours = (r: EdcMappingRow) => (
    <span style={{ overflowWrap: 'anywhere' }}>
      {changed.has(rowKey(r)) ? <Badge status="processing" style={{ marginInlineEnd: 6 }} /> : null}
      <Typography.Text strong={r.level !== 'item'}>{r.label}</Typography.Text>{' '}
      <Typography.Text type="secondary" style={{ fontSize: 12 }}>
        {r.level === 'item' ? r.localKey.slice(r.localKey.indexOf('.') + 1) : r.localKey}
      </Typography.Text>
      <RowProblems problems={problems.get(rowKey(r))} />
    </span>
  );

  const targetSelect = (r: EdcMappingRow) => {
    const testId = `edc-map-${r.level}-${r.localKey}`;
    if (r.level === 'event')
      return (
        <Select
          allowClear
          showSearch={{ optionFilterProp: 'label' }}
          style={{ width: '100%' }}
          value={r.target ?? undefined}
          placeholder={t('mapping.pickEvent')}
          onChange={(v?: string) => edit(r, { target: v ?? null, targetGroup: null, valueMap: null })}
          options={choices.events.map((e) => ({ value: e, label: e }))}
          data-testid={testId}
        />
      );
    if (r.level === 'form')
      return (
        <Select
          allowClear
          showSearch={{ optionFilterProp: 'label' }}
          style={{ width: '100%' }}
          value={r.target ?? undefined}
          placeholder={t('mapping.pickForm')}
          onChange={(v?: string) => edit(r, { target: v ?? null, targetGroup: null, valueMap: null })}
          options={choices.forms.map((f) => ({ value: f, label: f }))}
          data-testid={testId}
        />
      );
    const tf = formTarget(r.formCode);
    const inForm = tf ? (choices.items.get(tf) ?? []) : [];
    const current = targetItemOf(choices, tf, r);
    return (
      <Select
        allowClear
        showSearch={{ optionFilterProp: 'label' }}
        style={{ width: '100%' }}
        disabled={!tf}
        value={r.target ? itemChoiceValue(r.target, current?.group ?? r.targetGroup) : undefined}
        placeholder={tf ? t('mapping.pickItem') : t('mapping.formFirst')}
        onChange={(v?: string) => {
          if (!v) return edit(r, { target: null, targetGroup: null, valueMap: null });
          const c = parseItemChoice(v);
          edit(r, {
            target: c.item,
            targetGroup: c.group,
            valueMap: c.item === r.target ? r.valueMap : null,
          });
        }}
        options={inForm.map((c) => ({
          value: itemChoiceValue(c.item, c.group),
          label: `${c.item}${c.label ? ` — ${c.label}` : ''}${c.required ? ' *' : ''}`,
        }))}
        labelRender={(o) => (typeof o.value === 'string' ? parseItemChoice(o.value).item : o.label)}
        data-testid={testId}
      />
    );
  };

  const codesCell = (r: EdcMappingRow) => {
    if (r.level !== 'item' || !r.options?.length || !r.target) return null;
    const target = targetItemOf(choices, formTarget(r.formCode), r);
    if (!target?.codes.length)
      return (
        <Typography.Text type="secondary" style={{ fontSize: 12 }}>
          {t('codes.none')}
        </Typography.Text>
      );
    const mapped = r.options.filter((o) => r.valueMap?.[o.value]).length;
    return (
      <Button size="small" onClick={() => setCodesOf(rowKey(r))} data-testid={`edc-codes-${r.localKey}`}>
        {t('codes.button', { mapped, total: r.options.length })}
      </Button>
    );
  };

  const targetInfo = (r: EdcMappingRow) => {
    if (r.level !== 'item') return null;
    const c = targetItemOf(choices, formTarget(r.formCode), r);
    if (!c) return null;
    return (
      <Space size={4} wrap>
        <Tag>{c.dataType}</Tag>
        {c.required ? <Tag color="red">{t('mapping.required')}</Tag> : null}
        {c.group ? (
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {c.group}
          </Typography.Text>
        ) : null}
      </Space>
    );
  };

  const treeColumns: TableColumnsType<TreeRow> = [
    { title: t('mapping.col.ours'), key: 'ours', render: (_: unknown, x) => ours(x.row) },
    {
      title: t('mapping.col.target'),
      key: 'target',
      width: 320,
      render: (_: unknown, x) => targetSelect(x.row),
    },
    {
      title: t('mapping.col.targetInfo'),
      key: 'info',
      width: 200,
      render: (_: unknown, x) => targetInfo(x.row),
    },
    { title: t('mapping.col.codes'), key: 'codes', width: 170, render: (_: unknown, x) => codesCell(x.row) },
  ];
  const eventColumns: TableColumnsType<EdcMappingRow> = [
    { title: t('mapping.col.visit'), key: 'ours', render: (_: unknown, r) => ours(r) },
    { title: t('mapping.col.event'), key: 'target', width: 320, render: (_: unknown, r) => targetSelect(r) },
  ];

  if (versions.isError)
    return (
      <Result
        status="warning"
        title={t('loadFailed')}
        subTitle={versions.error.message}
        extra={<Button onClick={() => void versions.refetch()}>{t('retry')}</Button>}
      />
    );
  if (versions.data && !versions.data.length)
    return <Empty description={t('mapping.noVersion')} data-testid="edc-mapping-noversion" />;
  const codesRow = codesOf ? (byKey.get(codesOf) ?? null) : null;
  const list = itemList.data;
  return (
    <div data-testid="edc-mapping">
      <div style={{ display: 'flex', flexWrap: 'wrap', gap: 8, alignItems: 'center', marginBottom: 12 }}>
        <Select
          style={{ width: 260 }}
          loading={versions.isLoading}
          value={versionId ?? undefined}
          placeholder={t('mapping.version')}
          onChange={(v: number) =>
            guard.confirmDiscard(() => {
              setEdits({});
              setVersionId(v);
            })
          }
          options={(versions.data ?? []).map((v) => ({
            value: v.id,
            label: `${v.name} (V${v.versionNo})${v.collecting ? ` · ${t('mapping.collecting')}` : ''}`,
          }))}
          data-testid="edc-mapping-version"
        />
        <Button
          icon={<CloudDownloadOutlined />}
          loading={busy === 'read'}
          disabled={busy !== null}
          onClick={() => void readItems()}
          data-testid="edc-read-items"
        >
          {t('mapping.readItems')}
        </Button>
        <Tooltip title={list ? t('mapping.autoHint') : t('mapping.readFirst')}>
          <Button
            icon={<ThunderboltOutlined />}
            loading={busy === 'auto'}
            disabled={busy !== null || !list || versionId === null}
            onClick={() => void autoMap()}
            data-testid="edc-auto-map"
          >
            {t('mapping.auto')}
          </Button>
        </Tooltip>
        <span style={{ flex: 1 }} />
        {dirty ? (
          <Button icon={<UndoOutlined />} onClick={() => setEdits({})} data-testid="edc-mapping-discard">
            {t('mapping.discard')}
          </Button>
        ) : null}
        <Button
          type="primary"
          icon={<SaveOutlined />}
          loading={busy === 'save'}
          disabled={!dirty || busy !== null}
          onClick={() => void save()}
          data-testid="edc-mapping-save"
        >
          {dirty ? t('mapping.saveN', { count: changes.length }) : t('save')}
        </Button>
      </div>
      <Space orientation="vertical" size={12} style={{ width: '100%', marginBottom: 12 }}>
        {error ? (
          <Alert
            type="error"
            showIcon
            closable={{ onClose: () => setError(null) }}
            title={error}
            data-testid="edc-mapping-error"
          />
        ) : null}
        {list ? (
          <Typography.Text type="secondary" data-testid="edc-items-info">
            {t('mapping.itemsInfo', {
              at: fmtTime(list.fetchedAt),
              items: list.items.length,
              forms: choices.forms.length,
              events: choices.events.length,
            })}
          </Typography.Text>
        ) : itemList.isError ? (
          <Alert type="warning" showIcon title={itemList.error.message} />
        ) : config.targetItemsAt === null ? (
          <Alert type="info" showIcon title={t('mapping.itemsNever')} data-testid="edc-items-never" />
        ) : null}
        {dirty ? (
          <Alert
            type="warning"
            showIcon
            title={t('mapping.unsaved', { count: changes.length })}
            data-testid="edc-mapping-unsaved"
          />
        ) : null}
        {mapping.data?.problems.length ? (
          <ProblemList
            messages={mapping.data.problems.map((p) => p.message)}
            title={t('mapping.problemsSaved', { count: mapping.data.problems.length })}
            testId="edc-mapping-problems"
          />
        ) : mapping.data ? (
          <Alert type="success" showIcon title={t('mapping.ready')} data-testid="edc-mapping-ready" />
        ) : null}
      </Space>
      {mapping.isError ? (
        <Result
          status="warning"
          title={t('loadFailed')}
          subTitle={mapping.error.message}
          extra={<Button onClick={() => void mapping.refetch()}>{t('retry')}</Button>}
        />
      ) : (
        <>
          <div style={{ display: 'flex', flexWrap: 'wrap', gap: 12, alignItems: 'center', marginBottom: 12 }}>
            <Input.Search
              allowClear
              value={search}
              onChange={(e) => setSearch(e.target.value)}
              placeholder={t('mapping.search')}
              style={{ width: 260 }}
              data-testid="edc-mapping-search"
            />
            <Space size={4}>
              <Switch size="small" checked={onlyOpen} onChange={setOnlyOpen} data-testid="edc-mapping-open" />
              <Typography.Text>{t('mapping.onlyOpen')}</Typography.Text>
            </Space>
          </div>
          <Typography.Title level={5}>{t('mapping.events')}</Typography.Title>
          {list && !choices.events.length ? (
            <Typography.Paragraph type="secondary">{t('mapping.noEvents')}</Typography.Paragraph>
          ) : (
            <Table<EdcMappingRow>
              rowKey={rowKey}
              size="small"
              tableLayout="fixed"
              loading={mapping.isLoading}
              dataSource={eventRows}
              columns={eventColumns}
              pagination={false}
              locale={{
                emptyText: (
                  <Empty
                    image={Empty.PRESENTED_IMAGE_SIMPLE}
                    description={t(needle || onlyOpen ? 'mapping.emptyFiltered' : 'mapping.emptyEvents')}
                  />
                ),
              }}
              style={{ marginBottom: 20 }}
              data-testid="edc-mapping-events"
            />
          )}
          <Typography.Title level={5}>{t('mapping.forms')}</Typography.Title>
          <Table<TreeRow>
            rowKey="key"
            size="small"
            tableLayout="fixed"
            scroll={{ x: 960 }}
            loading={mapping.isLoading}
            dataSource={formTree}
            columns={treeColumns}
            pagination={false}
            expandable={{ defaultExpandAllRows: true, indentSize: 20 }}
            key={`${versionId}-${needle}-${onlyOpen}-${rows.length}`}
            locale={{
              emptyText: (
                <Empty
                  image={Empty.PRESENTED_IMAGE_SIMPLE}
                  description={t(needle || onlyOpen ? 'mapping.emptyFiltered' : 'mapping.emptyForms')}
                />
              ),
            }}
            data-testid="edc-mapping-forms"
          />
        </>
      )}
      <ValueMapEditor
        row={codesRow}
        target={codesRow ? targetItemOf(choices, formTarget(codesRow.formCode), codesRow) : undefined}
        onClose={() => setCodesOf(null)}
        onChange={(m) => codesRow && edit(codesRow, { valueMap: m })}
      />
    </div>
  );
}
