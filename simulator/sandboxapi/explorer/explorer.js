// The API explorer at /_sandbox/docs: Swagger UI (swagger-ui-dist, embedded in
// the server, see swagger-ui/VENDOR) pointed at /_sandbox/openapi.yaml, with
// "Try it out" authorised as a sandbox account of the chosen workspace.
//
// The token comes from the control plane as the console gets it
// (POST /_sandbox/accounts/{id}/token: no client certificate or secret), through
// the console's own api.js, which also adds the workspace and admin token
// headers to every /_sandbox call, here and in "Try it out" alike. The page
// keeps its choice in its query (?workspace=<id>&account=<id>), so a link opens
// the explorer on that account; Swagger UI keeps the open operation in the
// fragment (#/<tag>/<operationId>).

import {
  ApiError, DEFAULT_WORKSPACE, adminToken, call, controlHeaders, currentWorkspace, setAdminToken, setCurrentWorkspace, stringEnd,
} from '/_sandbox/console/api.js';
import { $, h } from '/_sandbox/console/dom.js';

const WORKSPACE_KEY = 'pixsandbox.console.workspace'; // the console's last workspace (localStorage)
const idRE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const state = {
  accounts: [],
  account: '', // the id chosen, as text
  token: '',
  warning: '', // what the link asked for and could not be shown
};

// Every blocked load is shown in the browser's console: the page's policy
// allows this server only.
document.addEventListener('securitypolicyviolation', (ev) => {
  console.error(`Content-Security-Policy blocked ${ev.blockedURI || 'an inline resource'} (${ev.violatedDirective})`);
});

function status(text, error = false) {
  const el = $('explorer-status');
  el.textContent = text;
  el.classList.toggle('error', error);
}

// say turns a failed call into what to do about it.
function say(err) {
  if (err instanceof ApiError && err.adminTokenMissing) {
    return `${err.message} — this server runs with --admin-token: enter it above and press Use.`;
  }
  return err instanceof ApiError ? err.message : `Unexpected error: ${err && err.message ? err.message : String(err)}`;
}

// The workspace and account the page opens on: the query's, else the
// console's last workspace and the workspace's first account.
function opening() {
  const q = new URLSearchParams(window.location.search);
  let ws = q.get('workspace');
  if (!ws) {
    try {
      ws = localStorage.getItem(WORKSPACE_KEY);
    } catch {
      ws = '';
    }
  }
  if (ws && ws !== DEFAULT_WORKSPACE && !idRE.test(ws)) {
    state.warning = `Workspace "${ws}" is neither a workspace id nor "default": showing the default workspace. `;
    ws = DEFAULT_WORKSPACE;
  }
  return { workspace: ws || DEFAULT_WORKSPACE, account: q.get('account') || '' };
}

// remember writes the choice in the URL (keeping Swagger UI's fragment) and
// points the console link at the same workspace and account.
function remember() {
  const q = new URLSearchParams({ workspace: currentWorkspace() });
  const view = new URLSearchParams({ workspace: currentWorkspace() });
  if (state.account) {
    q.set('account', state.account);
    view.set('account', state.account);
  }
  history.replaceState(history.state, '', `?${q}${window.location.hash}`);
  $('explorer-console-link').href = `/_sandbox/console#${view}`;
}

async function loadWorkspaces() {
  const ws = currentWorkspace();
  let listed = [];
  try {
    const r = await call('GET', '/_sandbox/workspaces', { query: { size: 500 } });
    listed = r.data || [];
  } catch (e) {
    // Without the server's admin token (or workspaces) only the current one is offered.
    if (!(e instanceof ApiError) || (e.status !== 401 && e.status !== 404)) {
      throw e;
    }
  }
  const ids = [DEFAULT_WORKSPACE, ...listed.map((w) => w.id).filter((id) => id !== DEFAULT_WORKSPACE)];
  if (!ids.includes(ws)) {
    ids.push(ws);
  }
  const label = (id) => {
    const w = listed.find((x) => x.id === id);
    return w && w.name ? `${w.name} (${id.slice(0, 8)})` : id;
  };
  $('explorer-workspace').replaceChildren(...ids.map((id) => h('option', { value: id, selected: id === ws }, label(id))));
}

async function loadAccounts() {
  const r = await call('GET', '/_sandbox/accounts');
  state.accounts = r.accounts || [];
  const ids = state.accounts.map((a) => String(a.id));
  if (!ids.includes(state.account)) {
    if (state.account) {
      state.warning += `Workspace ${currentWorkspace()} has no account ${state.account}. `;
    }
    state.account = ids[0] || '';
  }
  $('explorer-account').replaceChildren(...state.accounts.map((a) =>
    h('option', { value: String(a.id), selected: String(a.id) === state.account }, `${a.id} — ${a.name}`)));
}

let ready;
const uiReady = new Promise((resolve) => { ready = resolve; });

// authorize gets a token for the chosen account and gives it to Swagger UI's
// bearerAuth scheme, so "Try it out" sends Authorization: Bearer <token>.
async function authorize() {
  const ui = await uiReady;
  state.token = '';
  delete document.body.dataset.account;
  if (!state.account) {
    ui.authActions.logout(['bearerAuth']);
    status(`Workspace ${currentWorkspace()} has no account: "Try it out" on the PIX API needs one.`, true);
    return;
  }
  const id = state.account;
  const t = await call('POST', `/_sandbox/accounts/${id}/token`);
  if (id !== state.account) {
    return; // another account was chosen meanwhile
  }
  state.token = t.access_token;
  ui.preauthorizeApiKey('bearerAuth', t.access_token);
  const a = state.accounts.find((x) => String(x.id) === id);
  const warning = state.warning;
  state.warning = '';
  status(`${warning}"Try it out" calls the API as account ${id}${a ? ` (${a.name})` : ''} of workspace ${currentWorkspace()}: ` +
    `Authorization: Bearer <token from POST /_sandbox/accounts/${id}/token>, valid ${t.expires_in} s of simulation time ` +
    '(press New token after moving the clock past it). The control plane\'s routes act on this workspace.');
  document.body.dataset.account = id;
}

// show reads the workspaces and accounts and authorises the chosen account.
async function show() {
  try {
    await loadWorkspaces();
    await loadAccounts();
    remember();
    await authorize();
  } catch (e) {
    status(say(e), true);
  }
}

// requestInterceptor sends this workspace's headers (X-Sandbox-Workspace,
// X-Sandbox-Admin-Token) with "Try it out" on the control plane, unless the
// request sets them itself.
function requestInterceptor(req) {
  if (req.loadSpec) {
    return req;
  }
  const url = new URL(req.url, window.location.href);
  if (url.origin === window.location.origin && url.pathname.startsWith('/_sandbox/')) {
    const have = Object.keys(req.headers || {}).map((k) => k.toLowerCase());
    req.headers = req.headers || {};
    for (const [k, v] of Object.entries(controlHeaders(url.pathname))) {
      if (!have.includes(k.toLowerCase())) {
        req.headers[k] = v;
      }
    }
  }
  return req;
}

// responseInterceptor renews an expired token (the simulation clock moved past
// its 30 minutes) when the PIX API answers 401 to it.
function responseInterceptor(res) {
  const url = new URL(res.url, window.location.href);
  if (res.status === 401 && state.token && url.origin === window.location.origin && !url.pathname.startsWith('/_sandbox/')) {
    authorize().then(() => {
      if (state.token) {
        status(`${$('explorer-status').textContent} The API answered 401: a new token is set; press Execute again.`);
      }
    }, (e) => status(say(e), true));
  }
  return res;
}

// withoutScopedCopies leaves out of the view the path items that only
// repeat a control route under /_sandbox/workspaces/{workspace}/ (a $ref to
// the unscoped one): Swagger UI resolves each such item at load by
// normalising the whole OpenAPI 3.1 document again, which takes minutes for
// this one. They are the same routes with the workspace in the path; the
// unscoped ones shown act on the workspace chosen in the bar.
function withoutScopedCopies() {
  const scoped = /^\/_sandbox\/workspaces\/\{workspace\}\//;
  const drop = (spec) => {
    if (!spec || typeof spec.paths !== 'object' || spec.paths === null) {
      return spec;
    }
    const paths = Object.fromEntries(Object.entries(spec.paths).filter(([p, item]) => !(scoped.test(p) && item && item.$ref)));
    return { ...spec, paths };
  };
  return { statePlugins: { spec: { wrapActions: { updateJsonSpec: (next) => (spec, ...rest) => next(drop(spec), ...rest) } } } };
}

// indentJSON lays JSON text out with two-space indents, keeping every token
// as written.
function indentJSON(text) {
  let out = '';
  let depth = 0;
  const line = () => `\n${'  '.repeat(depth)}`;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const j = stringEnd(text, i);
      out += text.slice(i, j);
      i = j - 1;
    } else if (c === '{' || c === '[') {
      const rest = text.slice(i + 1).trimStart();
      if (rest[0] === (c === '{' ? '}' : ']')) {
        out += c + rest[0];
        i = text.length - rest.length;
      } else {
        depth++;
        out += c + line();
      }
    } else if (c === '}' || c === ']') {
      depth--;
      out += line() + c;
    } else if (c === ',') {
      out += `,${line()}`;
    } else if (c === ':') {
      out += ': ';
    } else if (!/\s/.test(c)) {
      out += c;
    }
  }
  return out;
}

// exactJSON shows a JSON answer as the server wrote it, only indented:
// Swagger UI would print it again through JSON.parse, turning the API's
// 10000.00 into 10000, where the two decimals are part of the contract.
function exactJSON() {
  return {
    wrapComponents: {
      responseBody: (Original, system) => (props) => {
        const { content, contentType } = props;
        if (typeof content !== 'string' || !/json/i.test(contentType || '')) {
          return system.React.createElement(Original, props);
        }
        try {
          JSON.parse(content);
        } catch {
          return system.React.createElement(Original, props);
        }
        const Code = system.getComponent('HighlightCode', true);
        return system.React.createElement(Code, { language: 'json', downloadable: true, fileName: 'response.json', canCopy: true },
          indentJSON(content));
      },
    },
  };
}

function init() {
  const start = opening();
  setCurrentWorkspace(start.workspace);
  state.account = start.account;
  $('explorer-workspace').addEventListener('change', () => {
    setCurrentWorkspace($('explorer-workspace').value);
    state.account = '';
    show();
  });
  $('explorer-account').addEventListener('change', () => {
    state.account = $('explorer-account').value;
    remember();
    authorize().catch((e) => status(say(e), true));
  });
  $('explorer-token').addEventListener('click', () => authorize().catch((e) => status(say(e), true)));
  $('explorer-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    setAdminToken($('explorer-admin-token').value.trim());
    $('explorer-admin-token').value = '';
    show();
  });
  const ui = window.SwaggerUIBundle({
    url: '/_sandbox/openapi.yaml',
    dom_id: '#swagger-ui',
    presets: [window.SwaggerUIBundle.presets.apis],
    plugins: [withoutScopedCopies, exactJSON],
    layout: 'BaseLayout',
    deepLinking: true,
    filter: true,
    displayRequestDuration: true,
    validatorUrl: null, // Swagger UI's default sends the document to an outside validator
    requestInterceptor,
    responseInterceptor,
    onComplete: () => ready(ui),
  });
  const v = window.versions && window.versions.swaggerUI;
  $('explorer-swagger-version').textContent = v ? v.version : '';
  if (adminToken()) {
    $('explorer-admin-token').placeholder = 'set for this tab';
  }
  show().then(() => { document.body.dataset.ready = 'true'; });
}

init();
