import { describe, expect, it } from 'vitest';
import { SessionMonitor } from './session-monitor.js';

describe('SessionMonitor.describe: a session named once by the first surface that sees its context', () => {
  it('sets the working directory, project and title it lacks, and never replaces them', async () => {
    const monitor = new SessionMonitor({ now: () => 0 });
    await monitor.create({ id: 's', model: 'claude-sonnet-4-5' });
    expect((await monitor.view('s')).project).toBeNull();
    const changes: string[] = [];
    monitor.subscribe((event) => {
      if (event.type === 'changed') changes.push(event.id);
    });
    const named = await monitor.describe('s', {
      workingDirectory: '/home/me/work/shop/api',
      title: 'Fix the failing login test',
    });
    expect(named).toMatchObject({
      workingDirectory: '/home/me/work/shop/api',
      project: 'shop/api',
      title: 'Fix the failing login test',
    });
    const again = await monitor.describe('s', { workingDirectory: '/elsewhere', title: 'A later request' });
    expect(again).toMatchObject({
      workingDirectory: '/home/me/work/shop/api',
      title: 'Fix the failing login test',
    });
    // Only the call that changed something was told to the listeners.
    expect(changes).toEqual(['s']);
  });

  it('keeps a project given at creation over the folder’s name', async () => {
    const monitor = new SessionMonitor({ now: () => 0 });
    const view = await monitor.create({
      id: 's',
      model: 'claude-sonnet-4-5',
      project: 'Shop',
      workingDirectory: '/srv/checkouts/shop-7',
    });
    expect(view.project).toBe('Shop');
  });

  it('refuses a field out of bounds, naming it, and writes nothing', async () => {
    const monitor = new SessionMonitor({ now: () => 0 });
    await monitor.create({ id: 's', model: 'claude-sonnet-4-5' });
    await expect(monitor.describe('s', { title: 'x'.repeat(201) })).rejects.toThrow(/title/);
    expect((await monitor.view('s')).title).toBeNull();
    await expect(monitor.describe('nobody', { title: 'x' })).rejects.toMatchObject({
      code: 'BR_ERR_SESSION_NOT_FOUND',
    });
  });
});
