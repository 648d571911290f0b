import { ERROR_STATUS, type ErrorCode } from '@esource/shared';

export interface FieldProblem {
  field: string;
  message: string;
}

/**
 * A typed error a service throws. The one error handler turns it into the failure envelope with the HTTP
 * status of its code and a message translated into the request's language.
 */
export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    readonly params: Record<string, string | number> = {},
    readonly detail?: FieldProblem[],
  ) {
    super(code);
    this.status = ERROR_STATUS[code];
  }
}

export const notFound = (entity: string) => new AppError('NOT_FOUND', { entity });
