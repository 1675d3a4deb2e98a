// Scenarios: the X-Sandbox-Scenario catalogue (GET /_sandbox/scenarios).

import { call } from './api.js';
import { $, h, show } from './dom.js';

export function scenariosPanel() {
  let cached = null;

  async function list() {
    if (!cached) {
      const r = await call('GET', '/_sandbox/scenarios');
      cached = r;
      $('scenario-header').textContent = r.header || 'X-Sandbox-Scenario';
    }
    return cached.data || [];
  }

  async function load() {
    const all = await list();
    const body = $('scenario-body');
    body.replaceChildren();
    for (const sc of all) {
      body.append(h('tr', { testid: 'scenario-row', dataset: { name: sc.name } },
        h('td', { class: 'mono' }, sc.name),
        h('td', { class: 'small' }, (sc.operations || []).join(', ')),
        h('td', {}, show(sc.phase)),
        h('td', { class: 'mono small' }, show(sc.code)),
        h('td', {}, show(sc.summary)),
        h('td', { class: 'small' }, show(sc.spec))));
    }
    if (!all.length) {
      body.append(h('tr', {}, h('td', { colspan: 6, class: 'muted' }, 'No scenarios.')));
    }
  }

  return { load, list };
}
