import { describe, expect, it } from 'vitest';
import type { FastifyRequest } from 'fastify';
import { toErrorEnvelope } from '../src/app';

const req = (language: 'zh_CN' | 'en_US') => ({ id: 'req-1', headers: {}, ctx: { language } }) as unknown as FastifyRequest;

describe('database errors in the failure envelope', () => {
  it('a deadlock or serialization failure asks the user to try again, in their language, without internals', () => {
    for (const err of [Object.assign(new Error('deadlock detected'), { code: '40P01' }), { message: 'wrapped', cause: { code: '40001' } }]) {
      const en = toErrorEnvelope(err, req('en_US'));
      expect(en.status).toBe(409);
      expect(en.body).toMatchObject({ status: '0', errorCode: 'RETRY', message: expect.stringContaining('nothing was saved') });
      expect(JSON.stringify(en.body)).not.toContain('deadlock');
      expect(toErrorEnvelope(err, req('zh_CN')).body.message).toContain('请重试');
    }
  });
  it('any other database error is a 500 naming only the request id', () => {
    const r = toErrorEnvelope(Object.assign(new Error('relation "x" does not exist'), { code: '42P01' }), req('en_US'));
    expect(r.status).toBe(500);
    expect(JSON.stringify(r.body)).not.toContain('relation');
  });
});

describe('an error whose detail names a catalogue message', () => {
  it('shows the detail in the request language, never the key', async () => {
    const { AppError } = await import('../src/lib/errors');
    const err = new AppError('CONFLICT', { detail: 'conflict.notInRecycleBin' });
    expect(toErrorEnvelope(err, req('en_US')).body.message).toBe('Conflict: the subject is not in the recycle bin');
    expect(toErrorEnvelope(err, req('zh_CN')).body.message).toBe('数据冲突：该受试者不在回收站中');
    // free text stays as it is
    expect(toErrorEnvelope(new AppError('CONFLICT', { detail: 'V1: changed' }), req('en_US')).body.message).toBe('Conflict: V1: changed');
  });
});
