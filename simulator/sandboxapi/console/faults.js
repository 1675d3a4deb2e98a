// Faults: the workspace's network fault rules (/_sandbox/faults, docs/faults.md)
// with a form to add one and buttons to remove them, and the requests a fault
// was applied to (GET /_sandbox/requests?fault=true).

import { Decimal, InputError, call, currentWorkspace, wholeNumber } from './api.js';
import { $, h, show } from './dom.js';

export function faultsPanel(ctx) {
  // rule reads the form into the body of POST /_sandbox/faults.
  function rule() {
    const route = $('fault-route').value.trim();
    const fault = $('fault-fault').value.trim();
    if (!route || !fault) {
      throw new InputError('Fault rule: give a route (e.g. /api/pix/cash-out, or * for every route) and a fault (e.g. reset-after)');
    }
    const body = { method: $('fault-method').value, route, fault };
    if ($('fault-account').checked) {
      if (!ctx.account()) {
        throw new InputError('Fault rule: select the account the rule is for, or untick "only the selected account"');
      }
      body.accountId = ctx.account().id;
    }
    const times = $('fault-times').value.trim();
    if (times) {
      body.times = wholeNumber(times, 'Times');
    }
    const p = $('fault-probability').value.trim();
    if (p) {
      if (!/^(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(p)) {
        throw new InputError(`Probability: "${p}" is not a number from 0 to 1, e.g. 0.25`);
      }
      body.probability = new Decimal(p.startsWith('.') ? `0${p}` : p);
    }
    const seed = $('fault-seed').value.trim();
    if (seed) {
      body.seed = wholeNumber(seed, 'Seed');
    }
    return body;
  }

  function scope(r) {
    const parts = [r.accountId ? `account ${r.accountId}` : 'every account'];
    parts.push(r.times === null ? 'no limit' : `${r.remaining} of ${r.times} left`);
    if (String(r.probability) !== '1') {
      parts.push(`probability ${r.probability}, seed ${r.seed}`);
    }
    return parts.join(' · ');
  }

  async function loadRules() {
    const ws = currentWorkspace();
    const r = await call('GET', '/_sandbox/faults');
    if (ws !== currentWorkspace()) {
      return;
    }
    const body = $('fault-rules');
    body.replaceChildren();
    for (const x of r.data) {
      const del = h('button', { type: 'button', class: 'link', testid: 'fault-rule-delete' }, 'remove');
      del.addEventListener('click', ctx.busy(del, async () => {
        await call('DELETE', `/_sandbox/faults/${x.id}`);
        ctx.notice(`Fault rule ${x.id} removed.`);
        await loadRules();
      }));
      body.append(h('tr', { testid: 'fault-rule-row', dataset: { id: String(x.id) } },
        h('td', {}, x.id), h('td', { class: 'mono' }, `${x.method} ${x.route}`), h('td', { class: 'mono' }, x.fault),
        h('td', { class: 'small' }, scope(x)), h('td', { class: 'num' }, x.matched), h('td', { class: 'num', testid: 'fault-rule-applied' }, x.applied),
        h('td', {}, del)));
    }
    if (!r.data.length) {
      body.append(h('tr', {}, h('td', { colspan: 7, class: 'muted' }, 'No fault rules: every request is answered as usual.')));
    }
  }

  async function loadFaulted() {
    const ws = currentWorkspace();
    const r = await call('GET', '/_sandbox/requests', { query: { fault: 'true', limit: 50 } });
    if (ws !== currentWorkspace()) {
      return;
    }
    const list = $('fault-requests');
    list.replaceChildren();
    for (const e of r.data) {
      const f = e.fault || {};
      list.append(h('li', { testid: 'fault-request-row' },
        h('span', { class: 'small muted' }, e.time), ' ', h('strong', { class: 'mono' }, `${e.method} ${e.path}`), ' ',
        h('span', { class: 'badge' }, f.applied), ' ',
        h('span', { class: 'small muted' }, `${f.source === 'rule' ? `rule ${f.ruleId}` : 'X-Sandbox-Fault'} · status ${show(e.status || 'none sent')} · ${e.durationMs} ms`)));
    }
    if (!r.data.length) {
      list.append(h('li', { class: 'muted small' }, r.enabled ? 'No request has been faulted yet.' : 'The server keeps no request journal (--journal-size 0).'));
    }
  }

  async function load() {
    await Promise.all([ctx.guarded(loadRules), ctx.guarded(loadFaulted)]);
  }

  $('fault-form').addEventListener('submit', ctx.busy($('fault-add'), async () => {
    const r = await call('POST', '/_sandbox/faults', { body: rule() });
    ctx.notice(`Fault rule ${r.id} added: ${r.method} ${r.route} gets ${r.fault}.`);
    await loadRules();
  }));
  $('fault-clear').addEventListener('click', ctx.busy($('fault-clear'), async () => {
    const r = await call('DELETE', '/_sandbox/faults');
    ctx.notice(`${r.deleted} fault rule(s) removed.`);
    await loadRules();
  }));
  $('fault-refresh').addEventListener('click', ctx.busy($('fault-refresh'), load));
  return { load };
}
