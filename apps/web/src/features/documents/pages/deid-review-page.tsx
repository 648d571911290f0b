import { useEffect, useMemo, useRef, useState } from 'react';
import {
  Alert,
  App,
  Badge,
  Button,
  Card,
  Descriptions,
  Empty,
  List,
  Popconfirm,
  Result,
  Segmented,
  Skeleton,
  Space,
  Tabs,
  Tag,
  Tooltip,
  Typography,
} from 'antd';
import {
  ArrowLeftOutlined,
  DeleteOutlined,
  DownloadOutlined,
  ExpandOutlined,
  ZoomInOutlined,
  ZoomOutOutlined,
} from '@ant-design/icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useLocation, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { SOURCE_FILE_STATUS, type SourceFileDetail, type SourceFileTextMask } from '@esource/shared';
import { usePms, useSession } from '../../session';
import { afterDocumentChange, documentsApi, fileDetailQuery, type FileFilters } from '../api/documents-api';
import { allowedActions, type Rect } from '../document-logic';
import { regionFromSearch } from '../../../lib/routing/document-links';
import { BoxCanvas, type EditorBox } from '../components/box-canvas';
import { FailDialog } from '../components/fail-dialog';
import { FileStatusTag } from '../components/file-status-tag';
import { FileTable } from '../components/file-table';
import { PageImage } from '../components/page-image';
import { TextMaskPanel } from '../components/text-mask-panel';
import { OcrAssociation, type OcrAssociationProps } from '../components/ocr-association';
import { UploadButton } from '../components/upload-button';
import '../documents.css';

const ZOOMS = [0.25, 0.33, 0.5, 0.67, 0.75, 0.9, 1, 1.25, 1.5, 2, 3];
let seq = 0;
const keyed = (d: SourceFileDetail): EditorBox[] => d.boxes.map((b) => ({ ...b, key: `b${++seq}` }));

/**
 * The de-identification screens (spec §2 /project/uploadTuomin for images, /project/pdfTuomin for PDFs,
 * /project/message/uploadTuomin from a message). Without ?id: the worklist of files a person still has to act on,
 * with the upload. With ?id: the review of one file — the page with the proposed boxes, which the user adds, moves,
 * resizes and removes, text masking, then submit; a reviewer passes or fails it (with a reason); withdraw.
 */
export default function DeidReviewPage() {
  const [params] = useSearchParams();
  const raw = params.get('id');
  const id = raw && /^\d+$/.test(raw) ? Number(raw) : null;
  if (raw !== null && id === null) return <Result status="404" title="404" />;
  return id === null ? <Worklist /> : <Review id={id} />;
}

function Worklist() {
  const { t } = useTranslation('documents');
  const location = useLocation();
  const pdf = location.pathname.endsWith('/pdfTuomin');
  const fixed: FileFilters = { tab: 'pending', kind: pdf ? 'pdf' : 'image' };
  return (
    <Card size="small" data-testid="deid-worklist">
      <Typography.Paragraph type="secondary">{t(pdf ? 'worklist.introPdf' : 'worklist.intro')}</Typography.Paragraph>
      <FileTable fixed={fixed} extra={<UploadButton />} />
    </Card>
  );
}

function Review({ id }: { id: number }) {
  const { t } = useTranslation('documents');
  const { message } = App.useApp();
  const has = usePms();
  const qc = useQueryClient();
  const location = useLocation();
  const projectId = useSession((s) => s.project?.id ?? null);
  const q = useQuery(fileDetailQuery(id));
  const d = q.data;
  const [zoom, setZoom] = useState(0.75);
  const [view, setView] = useState<'original' | 'redacted' | null>(null);
  const [boxes, setBoxes] = useState<EditorBox[]>([]);
  const [masks, setMasks] = useState<SourceFileTextMask[]>([]);
  const [dirty, setDirty] = useState(false);
  const [selected, setSelected] = useState<string | null>(null);
  const [hoverLine, setHoverLine] = useState<number | null>(null);
  // the region a proposed eCRF value was read from (OCR association tab, or a link from the value's source record)
  const [params] = useSearchParams();
  const linked = useMemo(() => regionFromSearch(params, id), [params, id]);
  const [assocRegion, setAssocRegion] = useState<OcrAssociationProps['shown']>(linked);
  const [page, setPage] = useState(linked?.page ?? 0);
  const [busy, setBusy] = useState<string | null>(null);
  const [failing, setFailing] = useState(false);
  const viewport = useRef<HTMLDivElement>(null);
  const loadedVersion = useRef<string | null>(null);

  // the boxes of the version read (again after a save or someone else's change, unless the user has edits)
  useEffect(() => {
    if (!d) return;
    const v = `${d.id}:${d.version}`;
    if (loadedVersion.current === v) return;
    if (dirty && loadedVersion.current?.startsWith(`${d.id}:`)) return;
    loadedVersion.current = v;
    setBoxes(keyed(d));
    setMasks([]);
    setDirty(false);
    setSelected(null);
  }, [d, dirty]);

  // a linked region on a page the file does not have (an old link): the first page
  useEffect(() => {
    if (d && page >= d.pages) setPage(0);
  }, [d, page]);

  const size = d?.pageSizes[page] ?? null;
  const fit = () => {
    const w = viewport.current?.clientWidth;
    if (w && size) setZoom(Math.max(0.1, Math.min(3, (w - 24) / size.width)));
  };
  // fit the page to the viewer's width when a file opens
  const fitted = useRef<number | null>(null);
  useEffect(() => {
    if (!d || !size || fitted.current === d.id) return;
    fitted.current = d.id;
    fit();
  }, [d, size]);

  const isf = d ? d.isfKindId !== null : location.pathname.startsWith('/project/researchFile');
  const actions = d ? allowedActions(d.status, has, isf) : [];
  const editable = Boolean(d?.canEdit && actions.includes('edit'));
  const copy: 'original' | 'redacted' = view ?? (d?.canOriginal ? 'original' : 'redacted');
  const pageBoxes = useMemo(() => boxes.filter((b) => b.page === page), [boxes, page]);
  const hl = hoverLine !== null && d?.lines[hoverLine]?.page === page ? d.lines[hoverLine] : null;
  const backTo = isf ? '/project/researchFile' : location.pathname.startsWith('/project/message') ? '/project/message' : '/project/sourceFile';

  const change = (next: EditorBox[]) => {
    setBoxes(next);
    setDirty(true);
  };
  const onAdd = (r: Rect) => {
    const b: EditorBox = { ...r, page, kind: 'manual', reason: '', key: `b${++seq}` };
    change([...boxes, b]);
    setSelected(b.key);
  };
  const onUpdate = (key: string, r: Rect) => change(boxes.map((b) => (b.key === key ? { ...b, ...r } : b)));
  const onRemove = (key: string) => {
    change(boxes.filter((b) => b.key !== key));
    setSelected(null);
  };
  const onMasks = (m: SourceFileTextMask[]) => {
    setMasks(m);
    setDirty(true);
  };

  const run = async (what: string, fn: () => Promise<unknown>, done: string) => {
    setBusy(what);
    try {
      await fn();
      void message.success(done);
      return true;
    } catch {
      return false;
    } finally {
      setBusy(null);
      await afterDocumentChange(qc);
    }
  };

  const save = async (): Promise<SourceFileDetail | null> => {
    if (!d) return null;
    setBusy('save');
    try {
      const after = await documentsApi.saveBoxes(
        d.id,
        d.version,
        boxes.map(({ page: p, x, y, width, height, kind, reason }) => ({ page: p, x, y, width, height, kind, reason })),
        masks,
      );
      loadedVersion.current = `${after.id}:${after.version}`;
      qc.setQueryData(fileDetailQuery(id).queryKey, after);
      setBoxes(keyed(after));
      setMasks([]);
      setDirty(false);
      void message.success(t('done.saved', { count: after.boxes.length }));
      return after;
    } catch {
      return null;
    } finally {
      setBusy(null);
      void afterDocumentChange(qc);
    }
  };

  const submit = async () => {
    const cur = dirty ? await save() : d;
    if (!cur) return;
    await run('submit', () => documentsApi.setStatus(cur.id, cur.version, SOURCE_FILE_STATUS.waitingAudit), t('done.submitted'));
  };

  const download = async () => {
    if (!d) return;
    const blob = await documentsApi.file(d.id, copy);
    const a = document.createElement('a');
    const url = URL.createObjectURL(blob);
    a.href = url;
    a.download = copy === 'redacted' && d.kind === 'image' ? d.fileName.replace(/\.[^.]*$/, '') + '.jpg' : d.fileName;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };

  if (q.isError && !d)
    return (
      <Result
        status="warning"
        title={t('loadFailed')}
        subTitle={q.error.message}
        extra={
          <Space>
            <Link to={backTo}>
              <Button>{t('back')}</Button>
            </Link>
            <Button onClick={() => void q.refetch()}>{t('retry')}</Button>
          </Space>
        }
      />
    );
  if (!d || projectId === null) return <Skeleton active />;

  const pagesNav =
    d.pages > 1 ? (
      <div className="doc-pages" data-testid="page-thumbs">
        {Array.from({ length: d.pages }, (_, i) => (
          <button key={i} type="button" className={`doc-page-thumb${i === page ? ' doc-page-thumb-active' : ''}`} onClick={() => setPage(i)} data-testid={`page-${i}`}>
            <Badge count={boxes.filter((b) => b.page === i).length} size="small" color="#595959" offset={[-6, 6]}>
              <PageImage id={d.id} version={d.version} page={i} copy="redacted" width={88} alt={t('viewer.page', { n: i + 1 })} ready={d.hasRedacted} />
            </Badge>
            <span>{t('viewer.page', { n: i + 1 })}</span>
          </button>
        ))}
      </div>
    ) : null;

  return (
    <div className="doc-review" data-testid="deid-review">
      <Card size="small">
        <div className="doc-review-head">
          <Space size={8} wrap>
            <Link to={backTo}>
              <Button icon={<ArrowLeftOutlined />} aria-label={t('back')} />
            </Link>
            <Typography.Title level={5} style={{ margin: 0 }} data-testid="review-title">
              {d.fileName}
            </Typography.Title>
            <FileStatusTag status={d.status} />
            {dirty ? <Tag color="orange">{t('viewer.unsaved')}</Tag> : null}
          </Space>
          <Space size={8} wrap>
            {editable ? (
              <>
                <Button disabled={!dirty} onClick={() => d && (setBoxes(keyed(d)), setMasks([]), setDirty(false))} data-testid="review-reset">
                  {t('action.reset')}
                </Button>
                <Button type={dirty ? 'primary' : 'default'} disabled={!dirty} loading={busy === 'save'} onClick={() => void save()} data-testid="review-save">
                  {t('action.save')}
                </Button>
              </>
            ) : null}
            {actions.includes('submit') ? (
              <Popconfirm title={t('confirm.submit')} description={t('confirm.submitHint', { count: boxes.length })} onConfirm={() => void submit()} okText={t('ok')} cancelText={t('cancel')}>
                <Button type="primary" loading={busy === 'submit'} data-testid="review-submit">
                  {t('action.submit')}
                </Button>
              </Popconfirm>
            ) : null}
            {actions.includes('redeid') ? (
              <Popconfirm
                title={t('confirm.redeid')}
                description={<div style={{ maxWidth: 320 }}>{t('confirm.redeidHint')}</div>}
                onConfirm={() => void run('redeid', () => documentsApi.redeid(d.id, d.version), t('done.redeid'))}
                okText={t('ok')}
                cancelText={t('cancel')}
              >
                <Button loading={busy === 'redeid'} disabled={dirty} data-testid="review-redeid">
                  {t('action.redeid')}
                </Button>
              </Popconfirm>
            ) : null}
            {actions.includes('withdraw') ? (
              <Button loading={busy === 'withdraw'} onClick={() => void run('withdraw', () => documentsApi.withdraw(d.id, d.version), t('done.withdrawn'))} data-testid="review-withdraw">
                {t('action.withdraw')}
              </Button>
            ) : null}
            {actions.includes('pass') ? (
              <Popconfirm title={t('confirm.pass')} onConfirm={() => void run('pass', () => documentsApi.setStatus(d.id, d.version, SOURCE_FILE_STATUS.auditPassed), t('done.passed'))} okText={t('ok')} cancelText={t('cancel')}>
                <Button type="primary" loading={busy === 'pass'} data-testid="review-pass">
                  {t('action.pass')}
                </Button>
              </Popconfirm>
            ) : null}
            {actions.includes('fail') ? (
              <Button danger onClick={() => setFailing(true)} data-testid="review-fail">
                {t('action.fail')}
              </Button>
            ) : null}
          </Space>
        </div>
        <Descriptions size="small" column={{ xs: 1, md: 3, xl: 5 }} style={{ marginTop: 8 }}>
          {d.isfKindId !== null ? (
            <>
              <Descriptions.Item label={t('col.isfKind')}>{d.isfKind ?? '—'}</Descriptions.Item>
              <Descriptions.Item label={t('col.isfVersion')}>{d.isfVersion}</Descriptions.Item>
            </>
          ) : (
            <>
              <Descriptions.Item label={t('col.subject')}>{d.ptsNo}</Descriptions.Item>
              <Descriptions.Item label={t('col.docType')}>{t(`docType.${d.docType}`, { defaultValue: String(d.docType) })}</Descriptions.Item>
            </>
          )}
          <Descriptions.Item label={t('col.pages')}>{d.pages}</Descriptions.Item>
          <Descriptions.Item label={t('col.uploadedBy')}>{d.createdBy ?? '—'}</Descriptions.Item>
          <Descriptions.Item label={t('col.uploaded')}>{d.createTime.slice(0, 16).replace('T', ' ')}</Descriptions.Item>
        </Descriptions>
        {d.status === SOURCE_FILE_STATUS.autoDeidentifying ? <Alert type="info" showIcon title={t('viewer.running')} data-testid="review-running" /> : null}
        {d.status === SOURCE_FILE_STATUS.submitFailed ? <Alert type="error" showIcon title={t('viewer.autoFailed')} description={d.errorMessage} data-testid="review-autofailed" /> : null}
        {d.status === SOURCE_FILE_STATUS.auditFailed ? (
          <Alert type="warning" showIcon title={t('viewer.auditFailed')} description={d.reason} data-testid="review-failed-reason" />
        ) : null}
      </Card>
      {d.hasRedacted && size ? (
        <div className="doc-review-body">
          {pagesNav}
          <Card size="small" className="doc-viewer-card" styles={{ body: { padding: 0 } }}>
            <div className="doc-toolbar">
              <Space size={4}>
                <Tooltip title={t('viewer.zoomOut')}>
                  <Button size="small" icon={<ZoomOutOutlined />} aria-label={t('viewer.zoomOut')} onClick={() => setZoom((z) => [...ZOOMS].reverse().find((x) => x < z - 0.001) ?? z)} />
                </Tooltip>
                <Typography.Text style={{ width: 48, textAlign: 'center', display: 'inline-block' }} data-testid="zoom-level">
                  {Math.round(zoom * 100)}%
                </Typography.Text>
                <Tooltip title={t('viewer.zoomIn')}>
                  <Button size="small" icon={<ZoomInOutlined />} aria-label={t('viewer.zoomIn')} onClick={() => setZoom((z) => ZOOMS.find((x) => x > z + 0.001) ?? z)} />
                </Tooltip>
                <Tooltip title={t('viewer.fit')}>
                  <Button size="small" icon={<ExpandOutlined />} aria-label={t('viewer.fit')} onClick={fit} />
                </Tooltip>
              </Space>
              {d.canOriginal ? (
                <Segmented
                  size="small"
                  value={copy}
                  onChange={(v) => setView(v as 'original' | 'redacted')}
                  options={[
                    { value: 'original', label: t('viewer.original') },
                    { value: 'redacted', label: t('viewer.redacted') },
                  ]}
                  data-testid="view-switch"
                />
              ) : (
                <Typography.Text type="secondary">{t('viewer.redactedOnly')}</Typography.Text>
              )}
              <Space size={4}>
                {d.pages > 1 ? <Typography.Text type="secondary">{t('viewer.pageOf', { n: page + 1, total: d.pages })}</Typography.Text> : null}
                <Tooltip title={t('viewer.download')}>
                  <Button size="small" icon={<DownloadOutlined />} aria-label={t('viewer.download')} onClick={() => void download()} data-testid="review-download" />
                </Tooltip>
              </Space>
            </div>
            {editable ? <div className="doc-hint">{t('viewer.editHint')}</div> : null}
            <div className="doc-viewport" ref={viewport}>
              <BoxCanvas
                image={<PageImage id={d.id} version={copy === 'original' ? 0 : d.version} page={page} copy={copy} alt={t('viewer.page', { n: page + 1 })} style={{ width: '100%', height: '100%' }} testId="page-image" />}
                size={size}
                zoom={zoom}
                boxes={copy === 'original' ? pageBoxes : []}
                editable={editable && copy === 'original'}
                selected={selected}
                onSelect={setSelected}
                onAdd={onAdd}
                onUpdate={onUpdate}
                onRemove={onRemove}
                highlight={hl ?? (assocRegion?.page === page ? assocRegion : null)}
              />
            </div>
          </Card>
          <Card size="small" className="doc-side">
            <Tabs
              size="small"
              items={[
                {
                  key: 'boxes',
                  label: t('side.boxes', { count: pageBoxes.length }),
                  children: pageBoxes.length ? (
                    <List
                      size="small"
                      dataSource={pageBoxes}
                      data-testid="box-list"
                      renderItem={(b, i) => (
                        <List.Item
                          className={selected === b.key ? 'doc-box-row-selected' : ''}
                          onClick={() => setSelected(b.key)}
                          actions={
                            editable
                              ? [
                                  <Button key="rm" size="small" type="text" danger icon={<DeleteOutlined />} aria-label={t('action.removeBox')} onClick={() => onRemove(b.key)} data-testid={`box-remove-${i}`} />,
                                ]
                              : []
                          }
                        >
                          <Typography.Text>
                            {i + 1}. {t(`kind.${b.kind}`, { defaultValue: b.kind })}
                          </Typography.Text>
                        </List.Item>
                      )}
                    />
                  ) : (
                    <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('side.noBoxes')} />
                  ),
                },
                ...(d.canOriginal
                  ? [
                      {
                        key: 'text',
                        label: t('side.text'),
                        children: <TextMaskPanel lines={d.lines} page={page} masks={masks} editable={editable} onMasks={onMasks} onHover={setHoverLine} />,
                      },
                    ]
                  : []),
                // an ISF document has no subject, so no eCRF to fill
                ...(has('crf:prefill:execute') && d.ptsId !== null && d.ptsNo !== null
                  ? [
                      {
                        key: 'assoc',
                        label: t('assoc.tab'),
                        children: (
                          <OcrAssociation
                            file={{ ...d, ptsId: d.ptsId, ptsNo: d.ptsNo }}
                            shown={assocRegion}
                            onShow={(r) => {
                              setPage(r.page);
                              setAssocRegion(r);
                            }}
                          />
                        ),
                      },
                    ]
                  : []),
              ]}
            />
          </Card>
        </div>
      ) : d.status !== SOURCE_FILE_STATUS.autoDeidentifying ? (
        <Card size="small">
          <Empty description={t('viewer.noCopy')} />
        </Card>
      ) : (
        <Card size="small">
          <Skeleton active />
        </Card>
      )}
      <FailDialog file={failing ? d : null} onClose={() => setFailing(false)} />
    </div>
  );
}
