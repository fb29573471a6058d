import { describe, expect, it } from 'vitest';
import { archivePath, matchRoute, sessionPath } from './router.js';

describe('matchRoute', () => {
  it('shows the sessions list at / and /sessions', () => {
    expect(matchRoute('/')).toEqual({ name: 'sessions' });
    expect(matchRoute('/sessions')).toEqual({ name: 'sessions' });
    expect(matchRoute('/sessions/')).toEqual({ name: 'sessions' });
  });

  it('opens a session page with the decoded id', () => {
    expect(matchRoute('/sessions/agent-7')).toEqual({ name: 'session', id: 'agent-7' });
    expect(matchRoute('/sessions/a%20b%2Fc')).toEqual({ name: 'session', id: 'a b/c' });
  });

  it('knows the replay and regulator pages, with or without a trailing slash', () => {
    expect(matchRoute('/replay')).toEqual({ name: 'replay' });
    expect(matchRoute('/report/')).toEqual({ name: 'report' });
    expect(matchRoute('/regulator/')).toEqual({ name: 'regulator' });
  });

  it('says not found for anything else, including a malformed escape', () => {
    expect(matchRoute('/nope')).toEqual({ name: 'not-found', path: '/nope' });
    expect(matchRoute('/sessions/a/b')).toEqual({ name: 'not-found', path: '/sessions/a/b' });
    expect(matchRoute('/sessions/%E0%A4%A')).toEqual({ name: 'not-found', path: '/sessions/%E0%A4%A' });
  });
});

describe('sessionPath', () => {
  it('encodes ids so that any id round-trips through the route', () => {
    for (const id of ['s1', 'a b', 'x/y', 'é?#']) {
      expect(matchRoute(sessionPath(id))).toEqual({ name: 'session', id });
    }
  });
});

describe('archivePath', () => {
  it('opens the archive page of a session’s task, both ids round-tripping', () => {
    expect(matchRoute('/sessions/s1/archives/subtask-1')).toEqual({
      name: 'archive',
      sessionId: 's1',
      taskId: 'subtask-1',
    });
    for (const [sessionId, taskId] of [
      ['s1', 'subtask-2'],
      ['a b', 'x/y'],
    ] as const) {
      expect(matchRoute(archivePath(sessionId, taskId))).toEqual({ name: 'archive', sessionId, taskId });
    }
  });
});
