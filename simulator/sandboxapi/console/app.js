// The console's entry point: errors and notices, the workspace picker (its own
// module), the admin tokens, the clock, the accounts, and the tabs, each tab in
// its own module.

import {
  AccountSession, ApiError, DEFAULT_WORKSPACE, InputError, adminToken, call, currentWorkspace, setAdminToken,
  setWorkspaceToken, wholeNumber, workspaceToken,
} from './api.js';
import { $, h, show, time } from './dom.js';
import { readLink, writeLink } from './links.js';
import { transactionsPanel } from './transactions.js';
import { chargesPanel } from './charges.js';
import { webhooksPanel } from './webhooks.js';
import { medsPanel } from './meds.js';
import { scenariosPanel } from './scenarios.js';
import { requestsPanel } from './requests.js';
import { faultsPanel } from './faults.js';
import { workspacePicker } from './workspaces.js';

// accountsPerPage is how many accounts the list shows at once (a
// conformance run leaves hundreds).
const accountsPerPage = 20;

const state = {
  accounts: [],
  accountsPage: 1,
  accountsQuery: '',
  session: null, // AccountSession of the selected account
  account: null, // its row of GET /_sandbox/accounts
  tab: 'transactions',
};

// report shows a failure to the user: every call's error ends here or in a
// form's own result line, never nowhere.
function report(err) {
  let text;
  if (err instanceof ApiError || err instanceof InputError) {
    text = err.message;
  } else {
    text = `Unexpected error: ${err && err.message ? err.message : String(err)}`;
    console.error(err);
  }
  if (err instanceof ApiError && err.adminTokenMissing) {
    $('admin-token-required').hidden = false;
    text += adminToken() || workspaceToken(currentWorkspace())
      ? ' — the admin token entered does not open this: the server\'s opens everything, a workspace\'s only that workspace; check it and press Use.'
      : ' — this server needs an admin token: enter it (the server\'s, or this workspace\'s own) at the top of the page.';
  }
  if (err instanceof ApiError && err.status === 404 && err.path.startsWith('/_sandbox/') && currentWorkspace() !== DEFAULT_WORKSPACE) {
    // The workspace may be gone (deleted, or idle past its ttl): the picker
    // checks, and leaves it if so.
    guarded(() => picker.load());
  }
  const list = $('error-list');
  const item = h('li', { testid: 'error-item', class: err instanceof ApiError && err.adminTokenMissing ? 'admin-token' : '' },
    h('span', { class: 'error-text' }, text),
    h('button', { type: 'button', class: 'link', testid: 'error-dismiss', on: { click: () => item.remove() } }, 'dismiss'));
  list.prepend(item);
  while (list.children.length > 6) {
    list.lastElementChild.remove();
  }
}

let noticeTimer = 0;

// notice shows a short success message.
function notice(text) {
  const el = $('notice');
  el.textContent = text;
  el.hidden = false;
  clearTimeout(noticeTimer);
  noticeTimer = setTimeout(() => { el.hidden = true; }, 6000);
}

// guarded runs an action, reporting its failure; it returns undefined then.
async function guarded(fn) {
  try {
    return await fn();
  } catch (e) {
    report(e);
    return undefined;
  }
}

// busy disables a button while its action runs, so a slow call is not sent twice.
function busy(button, fn) {
  return async (ev) => {
    if (ev) {
      ev.preventDefault();
    }
    if (button.disabled) {
      return;
    }
    button.disabled = true;
    try {
      await guarded(fn);
    } finally {
      button.disabled = false;
    }
  };
}

// ---- admin tokens ----

// The server's admin token opens every workspace and the workspace list; a
// workspace's own opens that workspace only, and is sent for it when known.

function renderAdminStatus() {
  const ws = currentWorkspace();
  const scope = $('admin-token-scope');
  scope.querySelector('option[value="workspace"]').disabled = ws === DEFAULT_WORKSPACE;
  if (ws === DEFAULT_WORKSPACE) {
    scope.value = 'server';
  }
  const parts = [adminToken() ? 'The server\'s admin token is set for this tab' : 'No server admin token'];
  if (ws !== DEFAULT_WORKSPACE) {
    parts.push(workspaceToken(ws) ? 'this workspace\'s own token is set (and sent for it)' : 'no token of this workspace\'s own');
  }
  $('admin-token-status').textContent = `${parts.join('; ')}. Needed only when the server runs with --admin-token.`;
}

// setToken keeps value as the token of the scope chosen in the form.
function setToken(value) {
  if ($('admin-token-scope').value === 'workspace') {
    setWorkspaceToken(currentWorkspace(), value);
  } else {
    setAdminToken(value);
  }
}

function initAdmin() {
  const input = $('admin-token-input');
  const save = async () => {
    setToken(input.value.trim());
    input.value = '';
    renderAdminStatus();
    $('admin-token-required').hidden = true;
    for (const li of $('error-list').querySelectorAll('li.admin-token')) {
      li.remove(); // the 401s of before: the calls are made again below
    }
    await guarded(() => picker.load());
    await reloadAll();
  };
  $('admin-token-form').addEventListener('submit', busy($('admin-token-save'), save));
  $('admin-token-clear').addEventListener('click', () => {
    const which = $('admin-token-scope').value === 'workspace' ? 'This workspace\'s admin token' : 'The server\'s admin token';
    setToken('');
    renderAdminStatus();
    notice(`${which} forgotten.`);
  });
  renderAdminStatus();
}

// ---- clock ----

function renderClock(c) {
  $('clock-now').textContent = time(c.now);
  $('clock-mode').textContent = c.mode;
}

// still reports whether the page still shows workspace ws: an answer for
// another one, read before a switch, is dropped.
function still(ws) {
  return ws === currentWorkspace();
}

async function loadClock() {
  const ws = currentWorkspace();
  const c = await call('GET', '/_sandbox/clock');
  if (still(ws)) {
    renderClock(c);
  }
}

async function advance(body, label) {
  const ws = currentWorkspace();
  const c = await call('POST', '/_sandbox/clock/advance', { body });
  if (!still(ws)) {
    return;
  }
  renderClock(c);
  $('clock-result').textContent = `Advanced ${label}; ${c.jobsRun} job(s) ran on the way.`;
  notice(`Clock advanced ${label}: now ${time(c.now)}.`);
  await afterStateChange();
}

function initClock() {
  for (const b of document.querySelectorAll('[data-seconds]')) {
    b.addEventListener('click', busy(b, () => advance({ seconds: wholeNumber(b.dataset.seconds, 'seconds') }, b.textContent)));
  }
  const custom = $('clock-custom-input');
  const go = busy($('clock-custom-advance'), async () => {
    const t = custom.value.trim();
    if (/^\d+$/.test(t)) {
      await advance({ seconds: wholeNumber(t, 'seconds') }, `${t} s`);
    } else if (/^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/.test(t)) {
      await advance({ duration: t }, t);
    } else {
      throw new InputError(`Custom advance: "${t}" is neither a number of seconds nor a duration such as 90s, 15m or 72h`);
    }
  });
  $('clock-custom-advance').addEventListener('click', go);
  custom.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter') {
      go(ev);
    }
  });
  $('clock-refresh').addEventListener('click', busy($('clock-refresh'), loadClock));
}

// ---- accounts ----

// accountMatches reports whether an account matches the search text: its id,
// holder, document, branch/number, client ids or PIX keys contain it.
function accountMatches(a, q) {
  if (!q) {
    return true;
  }
  const hay = [String(a.id), a.name, a.document, `${a.branch}/${a.accountNumber}`, ...(a.clientIds || []),
    ...(a.pixKeys || []).map((k) => k.key)].join(' ').toLowerCase();
  return q.toLowerCase().split(/\s+/).every((w) => hay.includes(w));
}

function renderAccounts() {
  const body = $('accounts-body');
  body.replaceChildren();
  const found = state.accounts.filter((a) => accountMatches(a, state.accountsQuery));
  const pages = Math.max(1, Math.ceil(found.length / accountsPerPage));
  state.accountsPage = Math.min(Math.max(1, state.accountsPage), pages);
  const from = (state.accountsPage - 1) * accountsPerPage;
  $('accounts-page-info').textContent = `${found.length} of ${state.accounts.length} account(s) · page ${state.accountsPage} of ${pages}`;
  $('accounts-prev').disabled = state.accountsPage <= 1;
  $('accounts-next').disabled = state.accountsPage >= pages;
  for (const a of found.slice(from, from + accountsPerPage)) {
    const selected = state.account && state.account.id === a.id;
    const select = h('button', { type: 'button', testid: `account-select-${a.id}`, class: selected ? 'selected' : '' },
      selected ? 'Selected' : 'Select');
    select.addEventListener('click', busy(select, () => selectAccount(a.id)));
    body.append(h('tr', { testid: `account-row-${a.id}`, class: selected ? 'selected' : '' },
      h('td', {}, a.id),
      h('td', {}, h('div', {}, a.name), h('div', { class: 'muted small' }, `${a.document} · ${a.branch}/${a.accountNumber}`)),
      h('td', { class: 'mono small' }, (a.clientIds || []).map((id) => h('div', {}, id))),
      h('td', { class: 'small' }, (a.pixKeys || []).map((k) => h('div', {}, `${k.type}: ${k.key}`))),
      h('td', { class: 'num', testid: `account-balance-gross-${a.id}` }, show(a.balance && a.balance.grossBalance)),
      h('td', { class: 'num', testid: `account-balance-blocked-${a.id}` }, show(a.balance && a.balance.blockedBalance)),
      h('td', { class: 'num', testid: `account-balance-net-${a.id}` }, show(a.balance && a.balance.netBalance)),
      h('td', {}, select)));
  }
  if (!found.length) {
    body.append(h('tr', {}, h('td', { colspan: 8, class: 'muted' }, state.accounts.length ? 'No account matches the search.' : 'No accounts.')));
  }
}

async function loadAccounts() {
  const ws = currentWorkspace();
  const r = await call('GET', '/_sandbox/accounts');
  if (!still(ws)) {
    return;
  }
  state.accounts = r.accounts || [];
  if (state.account) {
    state.account = state.accounts.find((a) => a.id === state.account.id) || state.account;
  }
  renderAccounts();
}

function renderSelected() {
  const a = state.account;
  $('selected-account').textContent = a
    ? `Account ${a.id} — ${a.name}: net balance ${show(a.balance && a.balance.netBalance)}. The public routes are called with a token for this account (POST /_sandbox/accounts/${a.id}/token).`
    : 'No account selected: choose one to see its transactions, charges, webhooks and MEDs.';
  document.body.classList.toggle('has-account', Boolean(a));
}

// tellAccountChanged lets every tab forget the previous account's view.
function tellAccountChanged() {
  for (const p of Object.values(panels)) {
    if (p.accountChanged) {
      p.accountChanged();
    }
  }
}

async function selectAccount(id) {
  const ws = currentWorkspace();
  const session = new AccountSession(id);
  await session.refresh(); // fail here, visibly, rather than on the first tab
  if (!still(ws)) {
    return;
  }
  state.session = session;
  state.account = state.accounts.find((a) => a.id === id) || { id, name: '' };
  renderAccounts();
  renderSelected();
  viewChanged();
  notice(`Account ${id} selected; token valid ${session.expiresIn} s of simulation time.`);
  tellAccountChanged();
  await loadTab();
}

// ---- tabs ----

const ctx = {
  report,
  notice,
  busy,
  guarded,
  session: () => state.session,
  account: () => state.account,
  accounts: () => state.accounts,
  afterStateChange: () => afterStateChange(),
  showTab: (name) => showTab(name),
  openTransaction: (id) => panels.transactions.open(id),
  openRequests: (ids) => panels.requests.open(ids),
  scenarios: () => panels.scenarios.list(),
  workspaceLabel: (id) => picker.label(id),
  workspaceChanged: () => workspaceChanged(),
  viewChanged: () => viewChanged(),
};

const picker = workspacePicker(ctx);

const panels = {
  transactions: transactionsPanel(ctx),
  charges: chargesPanel(ctx),
  webhooks: webhooksPanel(ctx),
  meds: medsPanel(ctx),
  scenarios: scenariosPanel(ctx),
  requests: requestsPanel(ctx),
  faults: faultsPanel(ctx),
};

async function loadTab() {
  const p = panels[state.tab];
  if (p && p.load) {
    await guarded(() => p.load());
  }
}

async function showTab(name) {
  state.tab = name;
  viewChanged();
  for (const b of document.querySelectorAll('[data-tab]')) {
    b.setAttribute('aria-selected', String(b.dataset.tab === name));
  }
  for (const s of document.querySelectorAll('[data-panel]')) {
    s.hidden = s.dataset.panel !== name;
  }
  for (const p of Object.values(panels)) {
    if (p.visible) {
      p.visible(p === panels[name]);
    }
  }
  await loadTab();
}

function initTabs() {
  for (const b of document.querySelectorAll('[data-tab]')) {
    b.addEventListener('click', () => showTab(b.dataset.tab));
  }
}

// afterStateChange re-reads what a payment or a clock move may have changed:
// balances, the clock and the open tab.
async function afterStateChange() {
  await guarded(loadClock);
  await guarded(async () => {
    await loadAccounts();
    renderSelected();
  });
  await loadTab();
}

// workspaceChanged shows the workspace just chosen in the picker: no account
// selected (an account id names another account there), its clock, accounts
// and the open tab.
async function workspaceChanged() {
  state.session = null;
  state.account = null;
  state.accounts = [];
  state.accountsPage = 1;
  $('clock-result').textContent = '';
  renderAccounts();
  renderSelected();
  renderAdminStatus();
  tellAccountChanged();
  recordView(false);
  await reloadAll();
}

async function reloadAll() {
  await Promise.all([guarded(loadClock), guarded(loadAccounts)]);
  renderSelected();
  await loadTab();
}

// ---- the view in the URL (links.js) ----

// applying counts the views being shown from the URL: their steps do not
// write it again.
let applying = 0;

function currentView() {
  const tx = state.tab === 'transactions' ? panels.transactions.opened() : '';
  return { workspace: currentWorkspace(), tab: state.tab === 'transactions' ? '' : state.tab, account: state.account ? state.account.id : '', tx };
}

// recordView writes the view in the URL (push: a new history entry, which
// Back leaves), and points the API explorer's link at its workspace and account.
function recordView(push) {
  const v = currentView();
  writeLink(v, push);
  $('docs-link').href = `/_sandbox/docs?${new URLSearchParams(v.account ? { workspace: v.workspace, account: v.account } : { workspace: v.workspace })}`;
}

// viewChanged records a view the user moved to: a tab, an account, a transaction.
function viewChanged() {
  if (!applying) {
    recordView(true);
  }
}

// applyLink shows the view the URL names: on opening, and on Back, Forward or
// an edited URL. What cannot be shown (an account that is not there) is
// reported, and the URL then names what is shown.
async function applyLink() {
  const v = readLink();
  applying += 1;
  try {
    if (v.workspace && v.workspace !== currentWorkspace()) {
      await picker.switchTo(v.workspace, false);
    }
    if (v.account && String(state.account && state.account.id) !== v.account) {
      await guarded(() => selectAccount(Number(v.account)));
    } else if (!v.account && state.account) {
      state.session = null;
      state.account = null;
      renderAccounts();
      renderSelected();
      tellAccountChanged();
    }
    await showTab(panels[v.tab] ? v.tab : 'transactions');
    if (state.tab === 'transactions') {
      await guarded(() => panels.transactions.show(v.tx));
    }
  } finally {
    applying -= 1;
  }
  recordView(false);
}

async function main() {
  initAdmin();
  initClock();
  initTabs();
  $('accounts-refresh').addEventListener('click', busy($('accounts-refresh'), loadAccounts));
  $('accounts-search').addEventListener('input', () => {
    state.accountsQuery = $('accounts-search').value.trim();
    state.accountsPage = 1;
    renderAccounts();
  });
  $('accounts-prev').addEventListener('click', () => { state.accountsPage -= 1; renderAccounts(); });
  $('accounts-next').addEventListener('click', () => { state.accountsPage += 1; renderAccounts(); });
  renderSelected();
  applying += 1;
  await guarded(() => picker.start());
  renderAdminStatus();
  await reloadAll();
  applying -= 1;
  await applyLink();
  window.addEventListener('popstate', () => guarded(applyLink));
  await guarded(() => panels.scenarios.list());
  $('console-status').textContent = `Connected to ${window.location.host}`;
  document.body.dataset.ready = 'true';
}

window.addEventListener('unhandledrejection', (ev) => report(ev.reason));
main().catch(report);
