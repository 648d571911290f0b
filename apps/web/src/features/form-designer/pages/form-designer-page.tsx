import { useCallback, useEffect, useMemo, useState } from 'react';
import { Alert, App, Button, Empty, Form, Input, Modal, Result, Space, Spin, Tabs, Tag, Tooltip, Typography, Upload } from 'antd';
import { ArrowLeftOutlined, DownloadOutlined, EyeOutlined, FormOutlined, SaveOutlined, UploadOutlined } from '@ant-design/icons';
import { DndContext, DragOverlay, KeyboardSensor, PointerSensor, closestCenter, pointerWithin, useSensor, useSensors, type CollisionDetection, type DragEndEvent, type DragStartEvent } from '@dnd-kit/core';
import { sortableKeyboardCoordinates } from '@dnd-kit/sortable';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { formFields, type FieldComponent, type FormRow, type TableComponent } from '@esource/shared';
import { ApiError } from '../../../lib/api-client';
import { useSession, useAccess } from '../../session';
import { FormRenderer, useCrfForm, type RenderableForm } from '../../crf-renderer';
import { designerApi } from '../designer-api';
import { saveBlob } from '../../../lib/download';
import { loadSharedValidation } from '../designer-i18n';
import { useUnsavedGuard } from '../use-unsaved-guard';
import {
  addComponent,
  duplicateComponent,
  findComponent,
  issuesFromServer,
  mergeCell,
  moveComponent,
  newDraft,
  readImport,
  removeComponent,
  resizeTable,
  splitCell,
  updateCell,
  updateComponent,
  validateDraft,
  withCode,
  type ComponentType,
  type DesignIssue,
  type Draft,
  type NewLabels,
} from '../designer-state';
import { Canvas, CANVAS_ID, PALETTE_PREFIX, Palette, issueText } from '../components/designer-canvas';
import { FieldProps, FormProps, TableProps, isTable } from '../components/property-panel';
import { TYPE_ICONS } from '../components/type-icons';
import '../form-designer.css';

loadSharedValidation();

/** Palette items are dropped where the pointer is; canvas items sort by the closest centre. */
const collision: CollisionDetection = (args) => {
  const within = pointerWithin(args);
  const items = within.filter((c) => c.id !== CANVAS_ID);
  if (items.length > 0) return items;
  if (within.length > 0) return within;
  return closestCenter(args);
};

/**
 * /project/microCrfConfig?versionId=…&formId=… — the form designer (spec §2, §5; issue 4 §6). Three panes:
 * component palette, canvas, property panel; a Preview tab with the eCRF renderer; save with optimistic
 * locking, JSON export and import. Editable only in DEV on an unpublished version; otherwise read-only.
 */
export default function FormDesignerPage() {
  return (
    <App>
      <FormDesigner />
    </App>
  );
}

function FormDesigner() {
  const { t, i18n } = useTranslation('designer');
  const { message } = App.useApp();
  const [params, setParams] = useSearchParams();
  const versionId = Number(params.get('versionId')) || null;
  const formId = Number(params.get('formId')) || null;
  const env = useSession((s) => s.env);
  const language = useSession((s) => s.language);
  const access = useAccess();

  const versions = useQuery({ queryKey: ['designer', 'versions', env], queryFn: designerApi.versions, enabled: versionId !== null });
  const version = versions.data?.find((v) => v.id === versionId) ?? null;
  const loaded = useQuery({ queryKey: ['designer', 'form', formId], queryFn: () => designerApi.form(formId!), enabled: formId !== null, staleTime: Infinity });

  const [draft, setDraft] = useState<Draft>(newDraft);
  const [meta, setMeta] = useState<{ id?: number; lockVersion?: number }>({});
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [selectedCell, setSelectedCell] = useState<{ row: number; col: number } | null>(null);
  const [showIssues, setShowIssues] = useState(false);
  const [serverIssues, setServerIssues] = useState<DesignIssue[]>([]);
  const [saveError, setSaveError] = useState<string | null>(null);
  const [dirty, setDirty] = useState(false);
  const [saving, setSaving] = useState(false);
  const [tab, setTab] = useState('design');
  const [propTab, setPropTab] = useState('form');
  const [dragType, setDragType] = useState<ComponentType | null>(null);
  const [importOpen, setImportOpen] = useState(false);
  const [mergeError, setMergeError] = useState<string | null>(null);

  // a loaded form replaces the draft once per id / lockVersion
  const row = loaded.data;
  useEffect(() => {
    if (!row) return;
    setDraft(row.definition);
    setMeta({ id: row.id, lockVersion: row.lockVersion });
    setDirty(false);
    setSelectedId(null);
    setSelectedCell(null);
    setPropTab('form');
    setShowIssues(false);
    setServerIssues([]);
    setSaveError(null);
  }, [row]);

  // leaving with unsaved changes asks first: in-app navigation (back link, breadcrumb, menu, tabs) and the browser
  const guard = useUnsavedGuard(dirty);

  const canWrite = Boolean(access && (access.pms.has('crf:form:update') || access.pms.has('crf:form:add')));
  const editable = env === 'DEV' && version !== null && version.status === 0 && canWrite;

  const labels: NewLabels = useMemo(
    () => ({ label: (type) => t(`type.${type}`), option: (n) => t('option.default', { n }) }),
    // the labels follow the language
    [t, i18n.language],
  );

  const validation = useMemo(() => validateDraft(draft), [draft]);
  const localIssues = validation.ok ? [] : validation.issues;
  const issues = showIssues ? [...localIssues, ...serverIssues] : [];

  const change = useCallback((fn: (d: Draft) => Draft) => {
    setDraft((d) => fn(d));
    setDirty(true);
    setServerIssues([]);
    setSaveError(null);
  }, []);

  const select = (id: string | null) => {
    setSelectedId(id);
    setSelectedCell(null);
    setMergeError(null);
    if (id) setPropTab('component');
  };

  const add = (type: ComponentType, index?: number) => {
    const r = addComponent(draft, type, index, labels);
    change(() => r.draft);
    select(r.id);
  };

  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 6 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );

  const onDragStart = (e: DragStartEvent) => {
    const id = String(e.active.id);
    setDragType(id.startsWith(PALETTE_PREFIX) ? (id.slice(PALETTE_PREFIX.length) as ComponentType) : null);
  };
  const onDragEnd = ({ active, over }: DragEndEvent) => {
    setDragType(null);
    if (!over || !editable) return;
    const id = String(active.id);
    const overIndex = draft.components.findIndex((c) => c.id === over.id);
    if (id.startsWith(PALETTE_PREFIX)) {
      add(id.slice(PALETTE_PREFIX.length) as ComponentType, overIndex >= 0 ? overIndex : draft.components.length);
      return;
    }
    const from = draft.components.findIndex((c) => c.id === id);
    if (from >= 0 && overIndex >= 0 && from !== overIndex) change((d) => moveComponent(d, from, overIndex));
  };

  const save = async () => {
    setShowIssues(true);
    const v = validateDraft(draft);
    if (!v.ok) {
      setSaveError(t('fixProblems', { count: v.issues.length }));
      return;
    }
    if (!versionId) return;
    setSaving(true);
    try {
      const saved = await designerApi.save({ versionId, ...(meta.id ? { id: meta.id, lockVersion: meta.lockVersion } : {}), definition: v.definition });
      applySaved(saved);
      void message.success(t('saved'));
    } catch (e) {
      if (e instanceof ApiError) {
        setSaveError(e.message);
        if (e.detail.length > 0) setServerIssues(issuesFromServer(draft, e.detail));
      } else setSaveError(String(e));
    } finally {
      setSaving(false);
    }
  };

  const applySaved = (saved: FormRow) => {
    guard.clean();
    setDraft(saved.definition);
    setMeta({ id: saved.id, lockVersion: saved.lockVersion });
    setDirty(false);
    setSaveError(null);
    setServerIssues([]);
    setShowIssues(false);
    if (String(saved.id) !== params.get('formId')) {
      const next = new URLSearchParams(params);
      next.set('formId', String(saved.id));
      setParams(next, { replace: true });
    }
  };

  const exportJson = async () => {
    if (!meta.id) return;
    const blob = await designerApi.exportFile(meta.id);
    saveBlob(blob, `${draft.code || 'form'}.form.json`);
  };

  if (versionId === null)
    return <Result status="info" title={t('title')} subTitle={t('noVersion')} extra={<Link to="/project/design">{t('back')}</Link>} />;
  if (versions.isLoading || (formId !== null && loaded.isLoading) || !access) return <Spin size="large" className="fd-spin" />;
  if (versions.isError || loaded.isError || !version)
    return <Result status="warning" title={t('loadFailed')} extra={<Link to={`/project/design?versionId=${versionId}`}>{t('back')}</Link>} />;

  const selected = findComponent(draft, selectedId);
  const variables = new Set(formFields(draft.components).map((f) => f.variable));
  const setTable = (tb: TableComponent) => change((d) => updateComponent(d, tb.id, tb));

  const propertyPane = (
    <Form layout="vertical" component="div" disabled={!editable} size="small" className="fd-props-form">
      <Tabs
        activeKey={propTab}
        onChange={setPropTab}
        size="small"
        items={[
          {
            key: 'component',
            label: <span data-testid="props-tab-component">{t('props.component')}</span>,
            children: !selected ? (
              <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('props.noSelection')} />
            ) : isTable(selected) ? (
              <TableProps
                table={selected}
                draft={draft}
                cell={selectedCell}
                mergeError={mergeError}
                issues={issues}
                labels={labels}
                onChange={setTable}
                onResize={(r, c) => setTable(resizeTable(selected, r, c))}
                onMerge={(dir) => {
                  if (!selectedCell) return;
                  const r = mergeCell(selected, selectedCell.row, selectedCell.col, dir);
                  if (typeof r === 'string') {
                    const text = t(`validation.${r === 'noCell' ? 'mergeUneven' : r}`);
                    setMergeError(text);
                    void message.error(text);
                  } else {
                    setMergeError(null);
                    setTable(r);
                  }
                }}
                onSplit={() => selectedCell && setTable(splitCell(selected, selectedCell.row, selectedCell.col))}
                onCellChange={(patch) => selectedCell && setTable(updateCell(selected, selectedCell.row, selectedCell.col, patch))}
              />
            ) : (
              <FieldProps
                key={selected.id}
                field={selected}
                issueId={selected.id}
                prefix=""
                issues={issues}
                variables={variables}
                onChange={(patch: Partial<FieldComponent>) => change((d) => updateComponent(d, selected.id, patch))}
              />
            ),
          },
          {
            key: 'form',
            label: (
              <span data-testid="props-tab-form">
                {t('props.form')}
                {issues.some((i) => i.componentId === null) ? <span className="fd-dot" /> : null}
              </span>
            ),
            children: <FormProps draft={draft} issues={issues} onChange={(patch) => change((d) => ({ ...d, ...patch }))} />,
          },
        ]}
      />
    </Form>
  );

  const designPane = (
    <DndContext sensors={sensors} collisionDetection={collision} onDragStart={onDragStart} onDragEnd={onDragEnd} onDragCancel={() => setDragType(null)}>
      <div className="fd-panes">
        <aside className="fd-pane fd-pane-left">{editable ? <Palette onAdd={(type) => add(type)} disabled={!editable} /> : <ReadOnlyNote />}</aside>
        <main className="fd-pane fd-pane-center" onClick={() => select(null)}>
          <div className="fd-canvas-head">
            <Typography.Text strong>{draft.name || t('untitled')}</Typography.Text>
            {draft.code ? <code className="fd-var">{draft.code}</code> : null}
            <Typography.Text type="secondary" className="fd-count">
              {t('canvas.count', { count: draft.components.length })}
            </Typography.Text>
          </div>
          <Canvas
            components={draft.components}
            selectedId={selectedId}
            selectedCell={selectedCell}
            issues={issues}
            editable={editable}
            language={language}
            onSelect={select}
            onSelectCell={(id, row, col) => {
              select(id);
              setSelectedCell({ row, col });
              setMergeError(null);
            }}
            onDuplicate={(id) => {
              const r = duplicateComponent(draft, id);
              change(() => r.draft);
              select(r.id);
            }}
            onDelete={(id) => {
              change((d) => removeComponent(d, id));
              if (selectedId === id) select(null);
            }}
          />
        </main>
        <aside className="fd-pane fd-pane-right" data-testid="designer-properties">
          {propertyPane}
        </aside>
      </div>
      <DragOverlay dropAnimation={null}>
        {dragType ? (
          <div className="fd-palette-item is-overlay">
            <span className="fd-palette-icon">{TYPE_ICONS[dragType]}</span>
            {t(`type.${dragType}`)}
          </div>
        ) : null}
      </DragOverlay>
    </DndContext>
  );

  const allIssues = issues.filter((i) => i.componentId === null || !draft.components.some((c) => c.id === i.componentId));

  return (
    <div className="fd-page" data-testid="form-designer">
      <header className="fd-header">
        <Space size={12} className="fd-header-left">
          <Link to={`/project/design?versionId=${versionId}`} data-testid="designer-back">
            <ArrowLeftOutlined /> {t('back')}
          </Link>
          <Typography.Title level={4} className="fd-title">
            {t('title')}
          </Typography.Title>
          <Tag>{version.name}</Tag>
          <Tag color={env === 'DEV' ? 'blue' : 'gold'}>{env}</Tag>
          {editable ? null : (
            <Tooltip title={t('readOnlyHint')}>
              <Tag color="default" data-testid="designer-readonly">
                {t('readOnly')}
              </Tag>
            </Tooltip>
          )}
          {dirty ? (
            <Tag color="orange" data-testid="designer-dirty">
              {t('unsaved')}
            </Tag>
          ) : null}
        </Space>
        <Space>
          {editable ? (
            <Button icon={<UploadOutlined />} data-testid="designer-import" onClick={() => setImportOpen(true)}>
              {t('import.button')}
            </Button>
          ) : null}
          <Tooltip title={meta.id ? (dirty ? t('exportSaved') : undefined) : t('exportNeedsSave')}>
            <Button icon={<DownloadOutlined />} data-testid="designer-export" disabled={!meta.id} onClick={() => void exportJson()}>
              {t('export')}
            </Button>
          </Tooltip>
          {editable ? (
            <Button type="primary" icon={<SaveOutlined />} loading={saving} data-testid="designer-save" onClick={() => void save()}>
              {t('save')}
            </Button>
          ) : null}
        </Space>
      </header>
      {saveError ? (
        <Alert
          className="fd-save-error"
          type="error"
          showIcon
          data-testid="designer-save-error"
          title={saveError}
          description={allIssues.length > 0 ? allIssues.map((i, k) => <div key={k}>{issueText(t, i)}</div>) : undefined}
          closable={{ onClose: () => setSaveError(null) }}
        />
      ) : null}
      <Tabs
        className="fd-tabs"
        activeKey={tab}
        onChange={setTab}
        destroyOnHidden
        items={[
          { key: 'design', label: <span data-testid="tab-design"><FormOutlined /> {t('tabs.design')}</span>, children: designPane },
          { key: 'preview', label: <span data-testid="tab-preview"><EyeOutlined /> {t('tabs.preview')}</span>, children: <Preview definition={draft} language={language} /> },
        ]}
      />
      {importOpen && versionId ? (
        <ImportDialog
          versionId={versionId}
          onClose={() => setImportOpen(false)}
          onImported={(saved) => {
            setImportOpen(false);
            void message.success(t('import.done', { code: saved.code }));
            const next = new URLSearchParams(params);
            next.set('formId', String(saved.id));
            setParams(next);
          }}
        />
      ) : null}
    </div>
  );
}

function ReadOnlyNote() {
  const { t } = useTranslation('designer');
  return <Alert type="info" showIcon title={t('readOnly')} description={t('readOnlyHint')} className="fd-readonly-note" />;
}

/** The form as data entry will show it: the very renderer eCRF uses. */
function Preview({ definition, language }: { definition: RenderableForm; language: string }) {
  const { t } = useTranslation('designer');
  const form = useCrfForm(definition);
  const [checked, setChecked] = useState<boolean | null>(null);
  if (definition.components.length === 0) return <Empty description={t('preview.empty')} className="fd-preview-empty" />;
  return (
    <div className="fd-preview" data-testid="designer-preview">
      <div className="fd-preview-paper">
        <FormRenderer {...form.rendererProps} language={language} />
        <Space>
          <Button
            type="primary"
            data-testid="preview-validate"
            onClick={() => setChecked(Object.keys(form.validate()).length === 0)}
          >
            {t('preview.validate')}
          </Button>
          <Button
            data-testid="preview-reset"
            onClick={() => {
              form.reset();
              setChecked(null);
            }}
          >
            {t('preview.reset')}
          </Button>
          {checked === true && Object.keys(form.errors).length === 0 ? <Typography.Text type="success">{t('preview.valid')}</Typography.Text> : null}
        </Space>
      </div>
      <div className="fd-preview-values">
        <Typography.Text type="secondary">{t('preview.values')}</Typography.Text>
        <pre data-testid="preview-values">{JSON.stringify(form.values, null, 2)}</pre>
      </div>
    </div>
  );
}

/** Choose an export file; its form code can be changed so that a copy lands next to the original. */
function ImportDialog({ versionId, onClose, onImported }: { versionId: number; onClose: () => void; onImported: (f: FormRow) => void }) {
  const { t } = useTranslation('designer');
  const [file, setFile] = useState<{ name: string; text: string } | null>(null);
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async () => {
    if (!file) return;
    setBusy(true);
    setError(null);
    try {
      onImported(await designerApi.import(versionId, code.trim() ? withCode(file.text, code.trim()) : file.text));
    } catch (e) {
      if (e instanceof ApiError && e.errorCode === 'IMPORT_FORMAT' && e.detail.length > 0)
        // the client puts the detail in the message; the reason goes after the spec's sentence
        setError(`${t('validation.importFormat')}: ${e.detail.map((d) => `${d.field}: ${d.message}`).join('; ')}`);
      else setError(e instanceof ApiError ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal
      open
      title={t('import.title')}
      onCancel={onClose}
      okText={t('import.ok')}
      cancelText={t('cancel')}
      okButtonProps={{ disabled: !file, loading: busy, 'data-testid': 'import-ok' }}
      onOk={() => void submit()}
    >
      <Space orientation="vertical" style={{ width: '100%' }}>
        <Upload
          accept=".json,application/json"
          maxCount={1}
          showUploadList={false}
          beforeUpload={(f) => {
            void f.text().then((text) => {
              setFile({ name: f.name, text });
              setError(null);
              const r = readImport(text);
              setCode(r.ok ? r.form.code : '');
            });
            return false;
          }}
        >
          <Button icon={<UploadOutlined />} data-testid="import-choose">
            {t('import.choose')}
          </Button>
        </Upload>
        {file ? <Typography.Text data-testid="import-file-name">{t('import.file', { name: file.name })}</Typography.Text> : null}
        <Form layout="vertical" component="div">
          <Form.Item label={t('import.code')} extra={t('import.codeHelp')}>
            <Input data-testid="import-code" value={code} disabled={!file} onChange={(e) => setCode(e.target.value)} />
          </Form.Item>
        </Form>
        {error ? <Alert type="error" showIcon title={error} data-testid="import-error" /> : null}
      </Space>
    </Modal>
  );
}
