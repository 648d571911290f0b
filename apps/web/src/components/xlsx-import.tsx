/**
 * The body of an all-or-nothing .xlsx import dialog (users, subjects): the drop zone, and after a refused upload
 * either the reason (a problem of the whole file) or every bad row and column the server named.
 */
import { useState } from 'react';
import { Alert, Table, Upload } from 'antd';
import type { UploadFile } from 'antd';
import { InboxOutlined } from '@ant-design/icons';
import { useMutation } from '@tanstack/react-query';
import { ApiError } from '../lib/api-client';

export interface ImportProblem {
  row: number | null;
  column: string;
  message: string;
}

/**
 * The server names each bad cell `row N: column`; problems of the file as a whole carry `file` and no row. Sorted by
 * row, keeping the server's column order within a row.
 */
export function parseImportProblems(detail: readonly { field: string; message: string }[]): ImportProblem[] {
  return detail
    .map((d) => {
      const m = /^row (\d+):\s*(.+)$/.exec(d.field);
      return m ? { row: Number(m[1]), column: m[2]!, message: d.message } : { row: null, column: d.field, message: d.message };
    })
    .map((p, i) => ({ p, i }))
    .sort((a, b) => (a.p.row ?? 0) - (b.p.row ?? 0) || a.i - b.i)
    .map(({ p }) => p);
}

/** The state of one import: the chosen file, the upload, and what the server refused. */
export function useXlsxImport<R>(upload: (f: File) => Promise<R>, onSuccess: (r: R) => void) {
  const [file, setFile] = useState<File | null>(null);
  const [problems, setProblems] = useState<ImportProblem[] | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const mutation = useMutation({
    mutationFn: upload,
    onMutate: () => {
      setProblems(null);
      setFailure(null);
    },
    onSuccess,
    onError: (err) => {
      if (err instanceof ApiError && err.detail.length > 0) {
        const list = parseImportProblems(err.detail);
        if (list.some((p) => p.row !== null)) setProblems(list);
        else setFailure(list.map((p) => p.message).join('; '));
      } else setFailure(err.message);
    },
  });
  const choose = (f: File | null) => {
    setFile(f);
    setProblems(null);
    setFailure(null);
  };
  return { file, choose, problems, failure, mutation, submit: () => file && mutation.mutate(file) };
}

export type XlsxImport = ReturnType<typeof useXlsxImport>;

export function XlsxImportPanel({
  imp,
  testIdPrefix,
  labels,
  columnLabel,
}: {
  imp: Pick<XlsxImport, 'file' | 'choose' | 'problems' | 'failure'>;
  /** data-testid prefix: `<prefix>-upload`, `-failure`, `-problems` */
  testIdPrefix: string;
  labels: {
    drop: string;
    failed: string;
    nothing: string;
    problemCount: (count: number, rows: number) => string;
    row: string;
    column: string;
    message: string;
  };
  columnLabel: (column: string) => string;
}) {
  const { file, problems, failure } = imp;
  const fileList: UploadFile[] = file ? [{ uid: '1', name: file.name, size: file.size, status: 'done' }] : [];
  return (
    <>
      <Upload.Dragger
        accept=".xlsx"
        maxCount={1}
        fileList={fileList}
        beforeUpload={(f) => {
          imp.choose(f);
          return false;
        }}
        onRemove={() => {
          imp.choose(null);
          return true;
        }}
        data-testid={`${testIdPrefix}-upload`}
      >
        <p className="ant-upload-drag-icon">
          <InboxOutlined />
        </p>
        <p className="ant-upload-text">{labels.drop}</p>
      </Upload.Dragger>
      {failure ? (
        <Alert type="error" showIcon title={labels.failed} description={failure} style={{ marginTop: 16 }} data-testid={`${testIdPrefix}-failure`} />
      ) : null}
      {problems ? (
        <div style={{ marginTop: 16 }} data-testid={`${testIdPrefix}-problems`}>
          <Alert
            type="error"
            showIcon
            title={labels.nothing}
            description={labels.problemCount(problems.length, new Set(problems.map((p) => p.row)).size)}
            style={{ marginBottom: 12 }}
          />
          <Table<ImportProblem>
            size="small"
            rowKey={(p) => `${p.row}-${p.column}-${p.message}`}
            pagination={false}
            scroll={{ y: 300 }}
            dataSource={problems}
            columns={[
              { title: labels.row, dataIndex: 'row', width: 80, render: (r: number | null) => r ?? '—' },
              { title: labels.column, dataIndex: 'column', width: 180, render: (c: string) => columnLabel(c) },
              { title: labels.message, dataIndex: 'message' },
            ]}
          />
        </div>
      ) : null}
    </>
  );
}
