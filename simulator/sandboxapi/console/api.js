// The console's only way to the server: the public API, with the selected
// account's bearer token, and the /_sandbox control plane's JSON routes, with
// the admin token when one was entered. Every route used here is documented in
// docs/openapi.yaml (console_test.go checks the paths written in these files).
//
// Every control-plane call acts on the workspace chosen in the picker
// (workspaces.js): call adds X-Sandbox-Workspace to it, here and nowhere else.

const ADMIN_TOKEN_KEY = 'pixsandbox.console.adminToken';
// WORKSPACE_TOKEN_KEY, followed by a workspace id, keeps that workspace's own
// admin token.
const WORKSPACE_TOKEN_KEY = 'pixsandbox.console.adminToken.';

// DEFAULT_WORKSPACE names the server's original world, which the unscoped
// routes act on without the header.
export const DEFAULT_WORKSPACE = 'default';

let workspace = DEFAULT_WORKSPACE;

// currentWorkspace is the id of the workspace the control-plane calls act on.
export function currentWorkspace() {
  return workspace;
}

export function setCurrentWorkspace(id) {
  workspace = id || DEFAULT_WORKSPACE;
}

// Admin tokens are kept in this tab's sessionStorage: they are gone when the
// tab closes.
function stored(key) {
  try {
    return sessionStorage.getItem(key) || '';
  } catch {
    return '';
  }
}

function store(key, value) {
  try {
    if (value) {
      sessionStorage.setItem(key, value);
    } else {
      sessionStorage.removeItem(key);
    }
  } catch {
    // Storage disabled: the token lives only until the page is reloaded.
  }
}

// adminToken is the server's admin token (--admin-token), which opens every
// workspace and the workspace list.
export function adminToken() {
  return stored(ADMIN_TOKEN_KEY);
}

export function setAdminToken(value) {
  store(ADMIN_TOKEN_KEY, value);
}

// workspaceToken is workspace id's own admin token, which opens that
// workspace's control routes only ('' when none was entered).
export function workspaceToken(id) {
  return id && id !== DEFAULT_WORKSPACE ? stored(WORKSPACE_TOKEN_KEY + id) : '';
}

export function setWorkspaceToken(id, value) {
  if (id && id !== DEFAULT_WORKSPACE) {
    store(WORKSPACE_TOKEN_KEY + id, value);
  }
}

// controlHeaders are the headers of a control-plane call: the workspace it
// acts on, and the admin token that opens it (the workspace's own when one was
// entered, else the server's). The workspace routes name their workspace in
// the path, and the list and creation take the server's token only.
export function controlHeaders(path) {
  const out = {};
  const m = /^\/_sandbox\/workspaces(?:\/([^/?#]+))?/.exec(path);
  let ws = workspace;
  if (m) {
    ws = m[1] || '';
  } else if (workspace !== DEFAULT_WORKSPACE) {
    out['X-Sandbox-Workspace'] = workspace;
  }
  const token = workspaceToken(ws) || adminToken();
  if (token) {
    out['X-Sandbox-Admin-Token'] = token;
  }
  return out;
}

// Decimal is a number the user typed, sent as a JSON number with exactly the
// digits typed: the console never does arithmetic on money.
export class Decimal {
  constructor(text) {
    this.text = text;
  }
}

// InputError is a field the user filled in wrongly; nothing was sent.
export class InputError extends Error {}

// money reads an amount in BRL as typed ("25", "25.5", "25.50").
export function money(text, field) {
  const t = String(text ?? '').trim();
  if (!/^\d{1,10}(\.\d{1,2})?$/.test(t)) {
    throw new InputError(`${field}: "${t}" is not an amount; write it like 25 or 25.50 (a dot, at most 2 decimals)`);
  }
  return new Decimal(t);
}

// money2 is an amount as the Central Bank routes want it: a string with exactly
// two decimals, padded as text ("25" becomes "25.00").
export function money2(text, field) {
  const t = money(text, field).text;
  const [units, cents = ''] = t.split('.');
  return `${units}.${cents.padEnd(2, '0')}`;
}

// wholeNumber reads a whole number as typed (seconds, ids).
export function wholeNumber(text, field) {
  const t = String(text ?? '').trim();
  if (!/^\d{1,12}$/.test(t)) {
    throw new InputError(`${field}: "${t}" is not a whole number`);
  }
  return new Decimal(t);
}

// toJSON serialises v like JSON.stringify, writing each Decimal's text as a
// JSON number literal.
export function toJSON(v) {
  if (v instanceof Decimal) {
    return v.text;
  }
  if (Array.isArray(v)) {
    return `[${v.map(toJSON).join(',')}]`;
  }
  if (v !== null && typeof v === 'object') {
    const parts = [];
    for (const [k, val] of Object.entries(v)) {
      if (val !== undefined) {
        parts.push(`${JSON.stringify(k)}:${toJSON(val)}`);
      }
    }
    return `{${parts.join(',')}}`;
  }
  return JSON.stringify(v);
}

// parseJSON parses a response keeping numbers as the server wrote them: a
// number with a fraction or an exponent (money such as 10000.00) or too long
// for a double becomes its text, so 10000.00 is shown as 10000.00 and never
// goes through a float. Whole numbers (ids, counts, status codes) stay numbers.
export function parseJSON(text) {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      const j = stringEnd(text, i);
      out += text.slice(i, j);
      i = j;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      let j = i + 1;
      while (j < text.length && '0123456789.eE+-'.includes(text[j])) {
        j++;
      }
      const tok = text.slice(i, j);
      out += /[.eE]/.test(tok) || tok.replace('-', '').length > 15 ? JSON.stringify(tok) : tok;
      i = j;
    } else {
      out += c;
      i++;
    }
  }
  return JSON.parse(out);
}

// stringEnd is the index just past the JSON string that starts at text[i].
export function stringEnd(text, i) {
  let j = i + 1;
  while (j < text.length && text[j] !== '"') {
    j += text[j] === '\\' ? 2 : 1;
  }
  return j + 1;
}

// ApiError is a failed call: the HTTP status (0 when the server could not be
// reached) and the message of the error body.
export class ApiError extends Error {
  constructor(method, path, status, statusText, body, detail) {
    super(`${method} ${path} → ${status ? `${status} ${statusText}` : 'no answer'}: ${detail}`);
    this.method = method;
    this.path = path;
    this.status = status;
    this.body = body;
  }

  // adminTokenMissing reports a 401 of the control plane: the server runs
  // with --admin-token and the header was missing or wrong.
  get adminTokenMissing() {
    return this.status === 401 && this.path.startsWith('/_sandbox/');
  }
}

// errorDetail is the message of any of the API's three error shapes.
function errorDetail(body, raw, resp) {
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    let msg = body.message;
    if (Array.isArray(msg)) {
      msg = msg.join('; ');
    }
    const parts = [];
    if (msg !== undefined && msg !== null && msg !== '') {
      parts.push(String(msg));
    }
    const code = body.errorCode || body.code;
    if (code && code !== 'HTTP_ERROR') {
      parts.push(`[${code}]`);
    }
    if (body.userMessage && body.userMessage !== msg) {
      parts.push(`(${body.userMessage})`);
    }
    if (parts.length) {
      let out = parts.join(' ');
      const retry = resp.headers.get('Retry-After');
      if (resp.status === 429 && retry) {
        out += ` — Retry-After ${retry} s`;
      }
      return out;
    }
  }
  const text = (raw || '').trim();
  return text ? text.slice(0, 300) : 'empty body';
}

// call makes one request and returns the parsed body; it throws ApiError for
// any status outside 2xx and for a body that is not JSON.
export async function call(method, path, { query, body, bearer, headers: extra } = {}) {
  const url = new URL(path, window.location.origin);
  for (const [k, v] of Object.entries(query || {})) {
    for (const one of Array.isArray(v) ? v : [v]) { // an array: the parameter repeated
      if (one !== undefined && one !== null && one !== '') {
        url.searchParams.append(k, String(one));
      }
    }
  }
  const headers = { Accept: 'application/json', ...(extra || {}), ...(path.startsWith('/_sandbox/') ? controlHeaders(path) : {}) };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
  }
  if (bearer) {
    headers.Authorization = `Bearer ${bearer}`;
  }
  const shown = url.pathname + url.search;
  let resp;
  try {
    resp = await fetch(url, { method, headers, body: body === undefined ? undefined : toJSON(body), cache: 'no-store' });
  } catch (e) {
    throw new ApiError(method, shown, 0, '', null, `the server could not be reached (${e.message})`);
  }
  const raw = await resp.text();
  let data = null;
  let parsed = false;
  if (raw.trim() !== '') {
    try {
      data = parseJSON(raw);
      parsed = true;
    } catch {
      parsed = false;
    }
  }
  if (!resp.ok) {
    throw new ApiError(method, shown, resp.status, resp.statusText, data, errorDetail(data, raw, resp));
  }
  if (!parsed) {
    throw new ApiError(method, shown, resp.status, resp.statusText, null, `the answer is not JSON: ${raw.slice(0, 200) || 'empty body'}`);
  }
  return data;
}

// AccountSession calls the public API as one account, with a token from
// POST /_sandbox/accounts/{id}/token, and gets a new token when the API answers
// 401 (tokens live 30 minutes of simulation time, so advancing the clock
// expires them). A 401 is answered before any work, so the retry is safe.
export class AccountSession {
  constructor(id) {
    this.id = id;
    this.token = '';
    this.expiresIn = 0;
  }

  async refresh() {
    const t = await call('POST', `/_sandbox/accounts/${this.id}/token`);
    this.token = t.access_token;
    this.expiresIn = t.expires_in;
    return t;
  }

  async call(method, path, opts = {}) {
    if (!this.token) {
      await this.refresh();
    }
    try {
      return await call(method, path, { ...opts, bearer: this.token });
    } catch (e) {
      if (!(e instanceof ApiError) || e.status !== 401) {
        throw e;
      }
      await this.refresh();
      return call(method, path, { ...opts, bearer: this.token });
    }
  }
}
