import { beforeEach, describe, expect, it, vi } from 'vitest';

const projectIdByUuid = vi.fn();
vi.mock('./api/auth-api', () => ({
  authApi: { projectIdByUuid: (...a: unknown[]) => projectIdByUuid(...a) },
}));

const { applyGuardActions } = await import('./session-actions');
const { sessionStore } = await import('./session-store');

describe('entering a project by its uuid (spec §2 guard)', () => {
  beforeEach(() => projectIdByUuid.mockReset());

  it('a project not open yet: its label loads with the user info', async () => {
    sessionStore.set({ project: null, pendingProjectUuid: null });
    projectIdByUuid.mockResolvedValue(4);
    applyGuardActions([{ type: 'enterProjectByUuid', uuid: 'u-1' }], () => undefined);
    await vi.waitFor(() => expect(sessionStore.get().pendingProjectUuid).toBeNull());
    expect(sessionStore.get().project).toEqual({ id: 4, no: '', name: '', status: 1, uuid: 'u-1' });
  });

  it('the project already open keeps its number and name (the user info is not read again for the same project)', async () => {
    sessionStore.set({ project: { id: 4, no: 'PF-1', name: 'Study', status: 1 }, pendingProjectUuid: null });
    projectIdByUuid.mockResolvedValue(4);
    applyGuardActions([{ type: 'enterProjectByUuid', uuid: 'u-2' }], () => undefined);
    await vi.waitFor(() => expect(sessionStore.get().pendingProjectUuid).toBeNull());
    expect(sessionStore.get().project).toEqual({ id: 4, no: 'PF-1', name: 'Study', status: 1, uuid: 'u-2' });
  });
});
