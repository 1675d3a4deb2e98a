// Webhooks: the deliveries with each attempt's request and response
// (GET /_sandbox/webhook-deliveries), resending a transaction's webhook
// (POST /api/resend-webhook/{transactionIdentifier}) and the account's
// targets (/_sandbox/webhook-targets).

import { ApiError, InputError, call } from './api.js';
import { $, h, pretty } from './dom.js';

// renderDeliveries renders deliveries, newest first, each with its attempts.
export function renderDeliveries(deliveries, ctx, testid = 'deliveries') {
  const box = h('div', { class: 'deliveries', testid });
  if (!deliveries.length) {
    box.append(h('p', { class: 'muted small' }, 'No webhook deliveries.'));
    return box;
  }
  const sorted = [...deliveries].sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
  for (const d of sorted) {
    const last = d.attempts.length ? d.attempts[d.attempts.length - 1] : null;
    const summary = h('summary', {},
      h('span', { class: `badge status-${String(d.status).toLowerCase()}`, testid: 'delivery-status' }, d.status),
      ' ', h('strong', { testid: 'delivery-event-type' }, d.eventType),
      ` · transaction #${d.transactionId} · account ${d.accountId} → `,
      h('span', { class: 'mono small' }, d.url),
      ` · ${d.attempts.length} attempt(s)`,
      last ? ` · last answer ${last.statusCode || 'none'}` : '',
      d.nextAttemptAt ? ` · next attempt ${d.nextAttemptAt}` : '');
    const actions = h('div', { class: 'row' });
    const own = ctx.account() && ctx.account().id === d.accountId;
    if (own && d.transactionId) {
      const b = h('button', { type: 'button', testid: 'delivery-resend' }, 'Resend');
      b.addEventListener('click', ctx.busy(b, async () => {
        const r = await ctx.session().call('POST', `/api/resend-webhook/${d.transactionId}`, { body: {} });
        ctx.notice(`${r.message} (webhookLogId ${r.webhookLogId}, target answered ${r.statusCode}).`);
        await ctx.afterStateChange();
      }));
      actions.append(b);
    }
    const attempts = d.attempts.map((a) => h('div', { class: 'attempt', testid: 'delivery-attempt' },
      h('h5', {}, `Attempt ${a.number} · ${a.sentAt} · ${a.durationMs} ms · webhookLogId ${a.webhookLogId}`),
      h('div', { class: 'two' },
        h('div', {},
          h('div', { class: 'sublabel' }, `Request: POST ${a.url}`),
          h('pre', { testid: 'delivery-request-headers' }, a.requestHeaders.map((x) => `${x.key}: ${x.value}`).join('\n')),
          h('pre', { testid: 'delivery-request-body' }, pretty(a.requestBody))),
        h('div', {},
          h('div', { class: 'sublabel' }, 'Response'),
          h('pre', { testid: 'delivery-response' },
            `${a.statusCode ? `HTTP ${a.statusCode}` : 'no answer'}${a.error ? `\n${a.error}` : ''}\n\n${pretty(a.responseExcerpt)}`)))));
    box.append(h('details', {
      class: 'delivery',
      testid: 'delivery-row',
      dataset: { deliveryId: d.id, transactionId: d.transactionId, status: d.status, eventType: d.eventType },
    },
    summary,
    h('div', { class: 'small muted' }, `Delivery ${d.id} · event ${d.eventId} · target ${d.targetId || 'one-off URL'} · created ${d.createdAt}`),
    actions,
    attempts.length ? attempts : h('p', { class: 'muted small' }, 'No attempt yet: the job runner sends it when due (advance the clock by 0 s to run due jobs).')));
  }
  return box;
}

export function webhooksPanel(ctx) {
  let timer = 0;
  let shown = false;
  let lastSig = '';

  async function loadDeliveries() {
    const tx = $('deliveries-filter-tx').value.trim();
    if (tx && !/^\d+$/.test(tx)) {
      throw new InputError(`Transaction #: "${tx}" is not a transaction number`);
    }
    const account = ctx.account();
    const r = await call('GET', '/_sandbox/webhook-deliveries', {
      query: { accountId: account ? account.id : '', transactionId: tx, limit: 200 },
    });
    // Re-render only what changed, keeping the deliveries the user opened open.
    const list = $('delivery-list');
    const sig = JSON.stringify([account && account.id, tx, r.data]);
    if (sig === lastSig && list.firstChild) {
      return;
    }
    lastSig = sig;
    const opened = new Set(Array.from(list.querySelectorAll('details[open]'), (d) => d.dataset.deliveryId));
    const box = renderDeliveries(r.data || [], ctx, 'deliveries');
    for (const d of box.querySelectorAll('details')) {
      d.open = opened.has(d.dataset.deliveryId);
    }
    list.replaceChildren(box);
  }

  async function loadTargets() {
    const list = $('target-list');
    const account = ctx.account();
    if (!account) {
      list.replaceChildren(h('li', { class: 'muted small' }, 'Select an account to see its targets.'));
      return;
    }
    const r = await call('GET', '/_sandbox/webhook-targets', { query: { accountId: account.id } });
    list.replaceChildren();
    for (const t of r.data || []) {
      const del = h('button', { type: 'button', class: 'link', testid: 'target-delete' }, 'delete');
      del.addEventListener('click', ctx.busy(del, async () => {
        await call('DELETE', `/_sandbox/webhook-targets/${t.id}`);
        ctx.notice(`Target ${t.id} deleted.`);
        await loadTargets();
      }));
      list.append(h('li', { testid: 'target-row' },
        h('strong', {}, t.eventType), ' → ', h('span', { class: 'mono small' }, t.url),
        t.isActive ? '' : ' (inactive)', t.signed ? ' (signed)' : '', ' ', del));
    }
    if (!(r.data || []).length) {
      list.append(h('li', { class: 'muted small' }, 'No targets: webhooks of this account go nowhere.'));
    }
  }

  async function load() {
    await Promise.all([ctx.guarded(loadDeliveries), ctx.guarded(loadTargets)]);
  }

  function schedule() {
    clearInterval(timer);
    timer = 0;
    if (shown && $('deliveries-auto').checked) {
      timer = setInterval(() => { ctx.guarded(loadDeliveries); }, 3000);
    }
  }

  function init() {
    $('deliveries-refresh').addEventListener('click', ctx.busy($('deliveries-refresh'), loadDeliveries));
    $('deliveries-auto').addEventListener('change', schedule);
    const resendForm = $('resend-form');
    resendForm.addEventListener('submit', ctx.busy($('resend-submit'), async () => {
      const out = $('resend-result');
      out.textContent = '';
      if (!ctx.session()) {
        throw new InputError('Resend: select an account first (the route needs its token)');
      }
      const id = $('resend-id').value.trim();
      if (!id) {
        throw new InputError('Resend: give the transaction number, end-to-end id or external id');
      }
      const url = $('resend-url').value.trim();
      try {
        const r = await ctx.session().call('POST', `/api/resend-webhook/${encodeURIComponent(id)}`, { body: url ? { url } : {} });
        out.textContent = `${r.message} webhookLogId ${r.webhookLogId}, sent ${r.sentAt}, target answered ${r.statusCode || 'nothing'}.`;
      } catch (e) {
        out.textContent = e instanceof ApiError && e.status === 429 ? `Rate limited: ${e.message}` : e.message;
        throw e;
      }
      await loadDeliveries();
    }));
    $('target-form').addEventListener('submit', ctx.busy($('target-add'), async () => {
      const account = ctx.account();
      if (!account) {
        throw new InputError('Webhook target: select an account first');
      }
      const t = await call('POST', '/_sandbox/webhook-targets', {
        body: { accountId: account.id, url: $('target-url').value.trim(), eventType: $('target-event').value },
      });
      ctx.notice(`Target ${t.id} registered: ${t.eventType} → ${t.url}.`);
      await loadTargets();
    }));
  }

  init();
  return {
    load,
    visible(v) {
      shown = v;
      schedule();
    },
    accountChanged() {
      lastSig = '';
      $('delivery-list').replaceChildren();
    },
  };
}
