// Transactions: GET /api/transactions for the selected account, and a row's
// detail from GET /_sandbox/transactions/{id} with its webhook deliveries.

import { call } from './api.js';
import { $, fields, h, show } from './dom.js';
import { renderDeliveries } from './webhooks.js';

export function transactionsPanel(ctx) {
  let page = 1;
  let openID = 0;

  function query() {
    return {
      page,
      size: $('tx-page-size').value,
      status: $('tx-filter-status').value,
      type: $('tx-filter-type').value,
      startDate: $('tx-filter-start').value.trim(),
      endDate: $('tx-filter-end').value.trim(),
    };
  }

  async function load() {
    const body = $('tx-body');
    const s = ctx.session();
    if (!s) {
      body.replaceChildren(h('tr', {}, h('td', { colspan: 11, class: 'muted' }, 'Select an account to list its transactions.')));
      $('tx-page-info').textContent = '';
      return;
    }
    const r = await s.call('GET', '/api/transactions', { query: query() });
    const m = r.metadata || {};
    body.replaceChildren();
    for (const t of r.data || []) {
      const row = h('tr', {
        testid: `tx-row-${t.transactionId}`,
        class: `clickable${String(t.transactionId) === String(openID) ? ' selected' : ''}`,
        dataset: { transactionId: t.transactionId },
        on: { click: () => ctx.guarded(() => open(t.transactionId)) },
      },
      h('td', {}, t.transactionId),
      h('td', {}, t.operationType, h('div', { class: 'muted small' }, t.movementType)),
      h('td', { testid: 'tx-status' }, t.status),
      h('td', { class: 'num' }, show(t.originalAmount)),
      h('td', { class: 'num' }, show(t.feeAmount)),
      h('td', { class: 'num' }, show(t.finalAmount)),
      h('td', {}, show(t.counterpart && t.counterpart.name)),
      h('td', { class: 'mono small' }, show(t.endToEndId)),
      h('td', { class: 'small' }, show(t.externalId)),
      h('td', { class: 'small' }, show(t.createdAt)),
      // A Pendente item's processedAt is its createdAt (Gap G-53): nothing processed yet.
      h('td', { class: 'small' }, show(t.status === 'Pendente' ? '' : t.processedAt)));
      body.append(row);
    }
    if (!(r.data || []).length) {
      body.append(h('tr', {}, h('td', { colspan: 11, class: 'muted' }, 'No transactions in this page and interval.')));
    }
    $('tx-page-info').textContent = `Page ${m.page ?? page} of ${Math.max(m.totalPages ?? 1, 1)} · ${m.total ?? 0} transaction(s)`;
    $('tx-prev').disabled = !m.hasPrevious;
    $('tx-next').disabled = !m.hasNext;
    if (openID) {
      await ctx.guarded(() => open(openID, false));
    }
  }

  // open shows transaction id's detail, its charge when it is one, and its
  // webhook deliveries.
  async function open(id, scroll = true) {
    openID = id;
    const [t, deliveries] = await Promise.all([
      call('GET', `/_sandbox/transactions/${encodeURIComponent(id)}`),
      call('GET', '/_sandbox/webhook-deliveries', { query: { transactionId: id } }),
    ]);
    const panel = $('tx-detail');
    panel.hidden = false;
    panel.replaceChildren(renderDetail(t, deliveries.data || []));
    for (const tr of $('tx-body').querySelectorAll('tr[data-transaction-id]')) {
      tr.classList.toggle('selected', tr.dataset.transactionId === String(id));
    }
    if (scroll) {
      panel.scrollIntoView({ block: 'nearest' });
    }
    ctx.viewChanged();
  }

  function close() {
    openID = 0;
    $('tx-detail').hidden = true;
    ctx.viewChanged();
  }

  function renderDetail(t, deliveries) {
    const cp = t.counterpart || {};
    const rows = [
      ['Transaction #', t.id, 'tx-detail-id'],
      ['UUID', t.transactionId],
      ['Account', t.accountId],
      ['Kind', t.kind, 'tx-detail-kind'],
      ['Status', t.type ? `${t.status} (type ${t.type})` : t.status, 'tx-detail-status'],
      ['Amount', t.amount, 'tx-detail-amount'],
      ['Fee', t.fee],
      ['End-to-end id', t.endToEndId, 'tx-detail-e2e'],
      ['External id', t.externalId],
      ['Idempotency key', t.idempotencyKey],
      ['PIX key', t.pixKey],
      ['txid', t.txId],
      ['Description', t.description],
      ['Counterpart', [cp.name, cp.document, cp.bankName && `${cp.bankName} (${cp.bankCode}, ISPB ${cp.ispb})`,
        cp.branch && `branch ${cp.branch}`, cp.accountNumber && `account ${cp.accountNumber}`,
        cp.accountId && `sandbox account ${cp.accountId}`].filter(Boolean).join(' · ')],
      ['Created', t.createdAt, 'tx-detail-created'],
      ['Processed', t.processedAt, 'tx-detail-processed'],
      ['Error', t.errorCode ? `${t.errorCode}: ${show(t.errorMessage)}` : ''],
      ['Scenario', t.scenario],
      ['Related transaction', t.relatedId ? h('button', { type: 'button', class: 'link', on: { click: () => ctx.guarded(() => open(t.relatedId)) } }, `#${t.relatedId}`) : ''],
    ];
    if (t.charge) {
      const c = t.charge;
      rows.push(['Charge txid', c.txId], ['Correlation id', c.correlationId], ['Charge expires', c.expirationDate],
        ['Payment refused at', c.refusedPaymentAt], ['Splits', c.splits],
        ['Additional info', c.additionalInfo ? Object.entries(c.additionalInfo).map(([k, v]) => `${k}=${v}`).join(', ') : ''],
        ['BR Code', h('code', { class: 'wrap', testid: 'tx-detail-pixcode' }, c.pixCode)]);
    }
    const actions = h('div', { class: 'row' });
    const add = (label, testid, fn) => {
      const b = h('button', { type: 'button', testid }, label);
      b.addEventListener('click', ctx.busy(b, fn));
      actions.append(b);
    };
    if (t.kind === 'CASH_IN' && t.status === 'PENDING') {
      add('Pay this charge', 'tx-detail-pay', async () => {
        const p = await call('POST', '/_sandbox/payments', { body: { transactionId: String(t.id) } });
        ctx.notice(`Paid ${p.amount} (fee ${p.feeAmount}); end-to-end id ${p.endToEndId}.`);
        await ctx.afterStateChange();
      });
    }
    if ((t.kind === 'CASH_OUT' || t.kind === 'TRANSFER') && t.status === 'PENDING') {
      add('Settle now', 'tx-detail-settle', async () => {
        const r = await call('POST', `/_sandbox/transactions/${t.id}/settle`);
        ctx.notice(`Transaction #${r.id} is ${r.status}.`);
        await ctx.afterStateChange();
      });
    }
    const own = ctx.account() && ctx.account().id === t.accountId;
    if (own) {
      add('Resend webhook', 'tx-detail-resend', async () => {
        const r = await ctx.session().call('POST', `/api/resend-webhook/${encodeURIComponent(t.id)}`, { body: {} });
        ctx.notice(`${r.message} (webhookLogId ${r.webhookLogId}, target answered ${r.statusCode}).`);
        await open(t.id, false);
      });
    }
    const received = t.kind === 'PIX_IN' || (t.kind === 'CASH_IN' && t.status === 'CONFIRMED');
    if (received && t.endToEndId) {
      add('Open a MED against it', 'tx-detail-open-med', async () => {
        const m = await call('POST', '/_sandbox/med', { body: { accountId: t.accountId, endToEndId: t.endToEndId } });
        ctx.notice(`MED #${m.id} opened (${m.status}); see the MED tab.`);
      });
    }
    add('Requests that named it', 'tx-detail-requests', () => ctx.openRequests([t.id, t.transactionId, t.externalId, t.endToEndId, t.charge && t.charge.txId]));
    add('Refresh', 'tx-detail-refresh', () => open(t.id, false));
    return h('div', {},
      h('div', { class: 'section-head' }, h('h3', {}, `Transaction #${t.id}`),
        h('button', { type: 'button', class: 'link', on: { click: close } }, 'close')),
      fields(rows),
      actions,
      h('h4', {}, 'History'),
      renderHistory(t, deliveries),
      h('h4', {}, `Webhook deliveries (${deliveries.length})`),
      renderDeliveries(deliveries, ctx, 'tx-detail-deliveries'));
  }

  // renderHistory is the transaction's life in time order: created PENDING,
  // its final status (a transaction has three: PENDING, CONFIRMED, ERROR) and
  // every webhook attempt with the target's answer.
  function renderHistory(t, deliveries) {
    const events = [{ at: t.createdAt, what: t.status === 'PENDING' ? 'created: PENDING (still pending)' : 'created: PENDING' }];
    if (t.processedAt) {
      events.push({ at: t.processedAt, what: t.errorCode ? `${t.status}: ${t.errorCode}` : t.status });
    }
    for (const d of deliveries) {
      for (const a of d.attempts || []) {
        const answer = a.statusCode ? `HTTP ${a.statusCode}` : 'no answer';
        events.push({ at: a.sentAt, what: `webhook ${d.eventType} attempt ${a.number} to ${d.url}: ${answer}` });
      }
    }
    events.sort((x, y) => (x.at < y.at ? -1 : x.at > y.at ? 1 : 0));
    return h('ol', { class: 'history', testid: 'tx-detail-history' },
      ...events.map((e) => h('li', {}, h('span', { class: 'small muted' }, show(e.at)), ' ', e.what)));
  }

  function init() {
    $('tx-refresh').addEventListener('click', ctx.busy($('tx-refresh'), () => { page = 1; return load(); }));
    $('tx-prev').addEventListener('click', ctx.busy($('tx-prev'), () => { page = Math.max(1, page - 1); return load(); }));
    $('tx-next').addEventListener('click', ctx.busy($('tx-next'), () => { page += 1; return load(); }));
    for (const id of ['tx-filter-status', 'tx-filter-type', 'tx-page-size']) {
      $(id).addEventListener('change', () => { page = 1; ctx.guarded(load); });
    }
  }

  init();
  return {
    load,
    open: async (id) => {
      await ctx.showTab('transactions');
      await open(id);
    },
    // opened is the id of the transaction whose detail is open ('' for none).
    opened: () => (openID ? String(openID) : ''),
    // show opens transaction id's detail, or closes it when id is '' (a link).
    async show(id) {
      if (!id) {
        if (openID) {
          close();
        }
      } else if (String(openID) !== id) {
        await open(id);
      }
    },
    accountChanged() {
      page = 1;
      openID = 0;
      $('tx-detail').hidden = true;
    },
  };
}
