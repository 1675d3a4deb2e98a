// Workspaces: the picker in the header (GET /_sandbox/workspaces), creating
// one (POST /_sandbox/workspaces) and deleting the current one
// (DELETE /_sandbox/workspaces/{id}). The choice is kept in the URL
// (#workspace=<id>, links.js: a link opens the same workspace) and in
// localStorage; api.js sends it on every control-plane call.

import { ApiError, DEFAULT_WORKSPACE, InputError, currentWorkspace, call, setCurrentWorkspace, setWorkspaceToken, wholeNumber } from './api.js';
import { $, fields, h, pretty } from './dom.js';
import { readLink, writeLink } from './links.js';

const WORKSPACE_KEY = 'pixsandbox.console.workspace';
// listSize is how many workspaces the picker lists (the route's largest page).
const listSize = 500;
const idRE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

// wanted is the workspace the page was opened on: the URL's, else the one
// last chosen in this browser, else the default.
function wanted() {
  const linked = readLink().workspace;
  if (linked) {
    return linked;
  }
  try {
    return localStorage.getItem(WORKSPACE_KEY) || DEFAULT_WORKSPACE;
  } catch {
    return DEFAULT_WORKSPACE;
  }
}

// remember puts workspace id in the URL (a new history entry when push),
// keeping the tab; an account or transaction named there belongs to another
// workspace.
function remember(id, push) {
  const v = readLink();
  writeLink(v.workspace === id ? v : { workspace: id, tab: v.tab }, push);
  try {
    localStorage.setItem(WORKSPACE_KEY, id);
  } catch {
    // Storage disabled: the URL still names it.
  }
}

export function workspacePicker(ctx) {
  let listed = []; // the workspaces of GET /_sandbox/workspaces (or the current one alone)
  let total = 0;
  let listError = ''; // why the list is not shown ('' when it is)
  let current = null; // the current workspace's GET /_sandbox/workspaces/{id}, when readable

  // label names a workspace for people: its name and the start of its id.
  function label(id) {
    if (!id || id === DEFAULT_WORKSPACE) {
      return DEFAULT_WORKSPACE;
    }
    const w = listed.find((x) => x.id === id) || (current && current.id === id ? current : null);
    return w && w.name ? `${w.name} (${id.slice(0, 8)})` : id.slice(0, 8);
  }

  function render() {
    const id = currentWorkspace();
    const select = $('workspace-select');
    const ids = [DEFAULT_WORKSPACE, ...listed.map((w) => w.id)];
    if (!ids.includes(id)) {
      ids.push(id);
    }
    select.replaceChildren(...ids.map((x) => h('option', { value: x, selected: x === id }, label(x))));
    select.value = id;
    $('workspace-delete').disabled = id === DEFAULT_WORKSPACE;
    const w = current && current.id === id ? current : null;
    $('workspace-info').textContent = id === DEFAULT_WORKSPACE
      ? 'The server\'s original world (the unscoped /_sandbox routes).'
      : `${id}${w ? `\n${w.accountCount} account(s) · ${w.clock.mode} clock · ${w.expiresAt ? `deleted if idle until ${w.expiresAt}` : 'never expires'}` : ''}`;
    $('workspace-list-status').textContent = listError
      || (total > listed.length ? `${listed.length} of ${total} workspaces listed.` : '');
  }

  // load reads the current workspace and the list; without the server's
  // admin token the list answers 401 and the picker shows the current
  // workspace only.
  async function load() {
    const id = currentWorkspace();
    current = null;
    if (id !== DEFAULT_WORKSPACE) {
      try {
        current = await call('GET', `/_sandbox/workspaces/${id}`);
      } catch (e) {
        if (e instanceof ApiError && e.status === 404) {
          await gone(id);
          return;
        }
        if (!(e instanceof ApiError && e.adminTokenMissing)) {
          throw e;
        }
      }
    }
    try {
      const r = await call('GET', '/_sandbox/workspaces', { query: { size: listSize } });
      listed = r.data || [];
      total = (r.metadata && r.metadata.total) || listed.length;
      listError = '';
    } catch (e) {
      if (!(e instanceof ApiError) || (e.status !== 401 && e.status !== 404)) {
        throw e;
      }
      listed = current ? [current] : [];
      total = listed.length;
      listError = e.status === 404
        ? 'This server has no workspaces.'
        : 'Listing the workspaces needs the server\'s admin token: only the current one is shown.';
    }
    render();
  }

  // gone leaves a workspace that no longer exists (deleted, or idle past its
  // ttl) for the default one.
  async function gone(id) {
    setWorkspaceToken(id, '');
    ctx.report(new InputError(`Workspace ${id} no longer exists (deleted, or idle longer than its ttl): back to the default workspace.`));
    await switchTo(DEFAULT_WORKSPACE, false);
  }

  // choose makes id the current workspace, the default when id is not one.
  function choose(id, push = false) {
    if (id !== DEFAULT_WORKSPACE && !idRE.test(id)) {
      ctx.report(new InputError(`Workspace "${id}" is neither a workspace id (a lowercase UUID) nor "default": showing the default workspace.`));
      id = DEFAULT_WORKSPACE;
    }
    setCurrentWorkspace(id);
    remember(id, push);
    render();
    return id;
  }

  // start opens the workspace the page was opened on.
  async function start() {
    choose(wanted());
    await load();
  }

  // switchTo makes id the current workspace and reloads the page's data; a
  // new history entry unless push is false.
  async function switchTo(id, push = true) {
    id = choose(id, push);
    await ctx.guarded(load);
    if (currentWorkspace() === id) {
      await ctx.workspaceChanged();
    }
  }

  // accountsField reads the accounts field: "fixtures", "none" or a number.
  function accountsField() {
    const t = $('workspace-create-accounts').value.trim() || 'fixtures';
    if (t === 'fixtures' || t === 'none') {
      return t;
    }
    if (!/^\d+$/.test(t)) {
      throw new InputError(`Accounts: "${t}" is neither "fixtures", "none" nor a number of new accounts`);
    }
    return wholeNumber(t, 'Accounts');
  }

  function showCreated(w) {
    const box = $('workspace-created');
    $('workspace-created-title').textContent = `Workspace ${w.name || ''} ${w.id} created.`;
    $('workspace-created-fields').replaceChildren(fields([
      ['Admin token', w.adminToken, 'workspace-created-token'],
      ...(w.accounts || []).map((a) => [`Account ${a.id}`, `client id ${a.clientId} · secret ${a.clientSecret}`]),
    ]));
    $('workspace-created-json').textContent = pretty(JSON.stringify(w));
    box.hidden = false;
  }

  async function create() {
    const ttl = $('workspace-create-ttl').value.trim();
    const w = await call('POST', '/_sandbox/workspaces', {
      body: {
        name: $('workspace-create-name').value.trim() || undefined,
        accounts: accountsField(),
        clock: $('workspace-create-clock').value,
        ttl: ttl || undefined,
      },
    });
    setWorkspaceToken(w.id, w.adminToken);
    $('workspace-create-form').hidden = true;
    $('workspace-create-name').value = '';
    showCreated(w);
    ctx.notice(`Workspace ${w.name || w.id} created with ${w.accountCount} account(s); its admin token is kept in this tab.`);
    await switchTo(w.id);
  }

  async function remove() {
    const id = currentWorkspace();
    if (id === DEFAULT_WORKSPACE) {
      return;
    }
    const name = label(id);
    await call('DELETE', `/_sandbox/workspaces/${id}`);
    setWorkspaceToken(id, '');
    $('workspace-delete-confirm').hidden = true;
    ctx.notice(`Workspace ${name} deleted with everything in it.`);
    await switchTo(DEFAULT_WORKSPACE);
  }

  function init() {
    $('workspace-select').addEventListener('change', () => ctx.guarded(() => switchTo($('workspace-select').value)));
    $('workspace-refresh').addEventListener('click', ctx.busy($('workspace-refresh'), load));
    $('workspace-new').addEventListener('click', () => {
      $('workspace-delete-confirm').hidden = true;
      $('workspace-create-form').hidden = !$('workspace-create-form').hidden;
    });
    $('workspace-create-cancel').addEventListener('click', () => { $('workspace-create-form').hidden = true; });
    $('workspace-create-form').addEventListener('submit', ctx.busy($('workspace-create-submit'), create));
    $('workspace-delete').addEventListener('click', () => {
      $('workspace-create-form').hidden = true;
      $('workspace-delete-question').textContent = `Delete the workspace ${label(currentWorkspace())} and every record in it (accounts, transactions, webhooks, jobs)? This cannot be undone.`;
      $('workspace-delete-confirm').hidden = false;
    });
    $('workspace-delete-no').addEventListener('click', () => { $('workspace-delete-confirm').hidden = true; });
    $('workspace-delete-yes').addEventListener('click', ctx.busy($('workspace-delete-yes'), remove));
    $('workspace-created-dismiss').addEventListener('click', () => {
      $('workspace-created').hidden = true;
      $('workspace-created-fields').replaceChildren(); // its secrets leave the page
      $('workspace-created-json').textContent = '';
    });
  }

  init();
  return {
    start,
    load,
    label,
    switchTo,
  };
}
