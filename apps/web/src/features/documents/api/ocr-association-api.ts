import type { OcrAssociationResult } from '@esource/shared';
import { api } from '../../../lib/api-client';

/** OCR association (server: modules/documents/ocr-association.*; contract: shared ocr-association.schema). */
export const ocrAssociationApi = {
  /** reads the file's lab results and proposes them for the eCRF (idempotent); `visitId` when the file names none */
  associate: (fileId: number, visitId?: number) =>
    api.post<OcrAssociationResult>('/kbms/ai/kbmsCrfRules', { fileId, ...(visitId ? { visitId } : {}) }),
};
