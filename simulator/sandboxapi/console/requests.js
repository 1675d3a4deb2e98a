// Requests: the simulator's request journal (GET /_sandbox/requests), newest
// first, each with its headers and bodies (secrets masked by the server).

import { DEFAULT_WORKSPACE, call, currentWorkspace } from './api.js';
import { $, h, show } from './dom.js';

export function requestsPanel(ctx) {
  let refs = []; // the transaction identifiers of "Requests that named it"

  function pretty(text) {
    try {
      return JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      return text;
    }
  }

  function headerLines(headers) {
    return Object.keys(headers || {}).sort().map((k) => `${k}: ${headers[k]}`).join('\n');
  }

  function row(e) {
    const cls = e.status >= 500 ? 'bad' : e.status >= 400 ? 'warn' : 'ok';
    const target = e.query ? `${e.path}?${e.query}` : e.path;
    return h('details', { class: 'delivery', testid: 'request-row', dataset: { requestId: e.requestId, status: String(e.status), path: e.path, workspace: e.workspace } },
      h('summary', {},
        h('span', { class: 'small muted' }, e.time), ' ',
        h('strong', { class: 'mono' }, e.method), ' ',
        h('span', { class: 'mono' }, target), ' ',
        h('span', { class: `badge ${cls}`, testid: 'request-status' }, String(e.status)), ' ',
        h('span', { class: 'small muted' }, `${e.durationMs} ms · ${e.accountId ? `account ${e.accountId}` : 'no account'}`), ' ',
        h('span', { class: 'badge', title: `workspace ${e.workspace}`, testid: 'request-workspace' }, ctx.workspaceLabel(e.workspace))),
      h('div', { class: 'small muted mono' }, `request id ${e.requestId} · route ${e.route}${e.refs && e.refs.length ? ` · names ${e.refs.join(', ')}` : ''}`),
      h('h4', {}, 'Request headers'),
      h('pre', { testid: 'request-headers' }, headerLines(e.requestHeaders)),
      h('h4', {}, `Request body${e.requestBodyTruncated ? ' (first 16 KiB)' : ''}`),
      h('pre', { testid: 'request-body' }, show(e.requestBody ? pretty(e.requestBody) : '')),
      h('h4', {}, `Response body${e.responseContentType ? ` (${e.responseContentType})` : ''}${e.responseBodyTruncated ? ' (first 16 KiB)' : ''}`),
      h('pre', { testid: 'response-body' }, show(e.responseBody ? pretty(e.responseBody) : '')));
  }

  // syncWorkspaceFilter offers "every workspace" on the default workspace
  // only (the journal lists them all there, with the server's admin token).
  function syncWorkspaceFilter() {
    const select = $('requests-filter-workspace');
    const onDefault = currentWorkspace() === DEFAULT_WORKSPACE;
    select.querySelector('option[value="all"]').disabled = !onDefault;
    if (!onDefault) {
      select.value = '';
    }
    select.disabled = !onDefault;
    select.title = onDefault ? '' : 'Every workspace\'s requests are listed from the default workspace';
    $('requests-filter-workspace-current').textContent = `this workspace (${ctx.workspaceLabel(currentWorkspace())})`;
  }

  async function load() {
    syncWorkspaceFilter();
    const ws = currentWorkspace();
    const only = $('requests-filter-account').checked && ctx.account();
    const r = await call('GET', '/_sandbox/requests', {
      query: {
        workspace: $('requests-filter-workspace').value,
        account: only ? ctx.account().id : '',
        path: $('requests-filter-path').value.trim(),
        status: $('requests-filter-status').value.trim(),
        ref: refs,
        limit: 200,
      },
    });
    if (ws !== currentWorkspace()) {
      return; // read before a switch of workspace
    }
    const list = $('request-list');
    const opened = new Set(Array.from(list.querySelectorAll('details[open]'), (d) => d.dataset.requestId));
    list.replaceChildren();
    $('requests-info').textContent = r.enabled
      ? `${r.data.length} shown; the journal holds ${r.size} of at most ${r.capacity} requests.`
      : 'The server keeps no request journal (it runs with --journal-size 0).';
    $('requests-ref').textContent = refs.length ? `Only requests that named ${refs.join(', ')}.` : '';
    $('requests-clear-ref').hidden = !refs.length;
    for (const e of r.data) {
      const d = row(e);
      d.open = opened.has(e.requestId);
      list.append(d);
    }
    if (!r.data.length) {
      list.append(h('p', { class: 'muted' }, 'No requests match.'));
    }
  }

  function init() {
    $('requests-refresh').addEventListener('click', ctx.busy($('requests-refresh'), load));
    $('requests-clear-ref').addEventListener('click', ctx.busy($('requests-clear-ref'), () => { refs = []; return load(); }));
    $('requests-delete').addEventListener('click', ctx.busy($('requests-delete'), async () => {
      const r = await call('DELETE', '/_sandbox/requests');
      ctx.notice(`${r.deleted} request(s) dropped from the journal.`);
      await load();
    }));
    for (const id of ['requests-filter-workspace', 'requests-filter-account', 'requests-filter-status']) {
      $(id).addEventListener('change', () => ctx.guarded(load));
    }
    $('requests-filter-path').addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter') {
        ctx.guarded(load);
      }
    });
  }

  init();
  return {
    load,
    // open shows the requests that named any of ids (a transaction's).
    open: async (ids) => {
      refs = ids.filter((x) => x !== undefined && x !== null && x !== '').map(String);
      $('requests-filter-account').checked = false;
      $('requests-filter-path').value = '';
      $('requests-filter-status').value = '';
      await ctx.showTab('requests');
    },
  };
}
