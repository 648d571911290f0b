/** Business constants and limits from spec §9. Both the web app and the server read them from here. */
export const LIMITS = {
  requestTimeoutMs: 2_700_000,
  sourceUploadTimeoutMs: 180_000,
  keepAliveThrottleMs: 30_000,
  chunkLoadTimeoutMs: 120_000,
  sessionCheckMs: 30_000,
  progressPollMs: 5_000,
  fileDotPollMs: 3_000,
  pageSizes: [50, 100, 200] as const,
  defaultPageSize: 50,
  firstPage: 1,
  /** a subject's latest extraction tasks on its source-data page (the extraction report lists them all) */
  gatherTasksShown: 50,
  imageMaxBytes: 2 * 1024 * 1024,
  sourceUploadImages: 20,
  imageBatchCount: 100,
  imageBatchBytes: 1024 * 1024 * 1024,
  fileCountMax: 200,
  pdfMaxBytes: 50 * 1024 * 1024,
  dateSpanDays: 90,
  passwordMin: 8,
  passwordMax: 30,
  passwordStrength: { fail: 6, low: 30, medium: 60, strong: 80 },
  passwordChangeDays: 90,
  watermarkTile: { width: 300, height: 200 },
  watermarkCheckMs: 500,
  tracing: { maxQueueSize: 100, maxExportBatchSize: 10, scheduledDelayMillis: 500, exportTimeoutMillis: 30_000 },
  sideBarWidth: 200,
  sideBarCollapsedWidth: 60,
  orgNameMax: 30,
  projectNoMax: 20,
  projectNameMax: 100,
  roleNameMax: 10,
  roleIdMax: 20,
  accountMax: 50,
} as const;

export const LANGUAGES = ['zh_CN', 'en_US'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'zh_CN';

/** Normalises a `language` header (zh_CN, zh-CN, en, en-US …) to one of ours. */
export function normalizeLanguage(raw: string | null | undefined): Language {
  const v = (raw ?? '').toLowerCase().replace('-', '_');
  if (v.startsWith('en')) return 'en_US';
  return DEFAULT_LANGUAGE;
}
