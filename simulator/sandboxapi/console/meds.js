// MED: the account's MEDs (GET /api/med), opening one as the payer's bank
// would (POST /_sandbox/med) and forcing its steps (POST /_sandbox/med/{id}/…).

import { InputError, call, money } from './api.js';
import { $, h, show } from './dom.js';

export function medsPanel(ctx) {
  let page = 1;

  async function load() {
    const body = $('med-body');
    const s = ctx.session();
    if (!s) {
      body.replaceChildren(h('tr', {}, h('td', { colspan: 10, class: 'muted' }, 'Select an account to list its MEDs.')));
      $('med-page-info').textContent = '';
      return;
    }
    const r = await s.call('GET', '/api/med', { query: { status: $('med-filter-status').value, page, pageSize: 20 } });
    const m = r.metadata || {};
    body.replaceChildren();
    for (const med of r.data || []) {
      body.append(row(med));
    }
    if (!(r.data || []).length) {
      body.append(h('tr', {}, h('td', { colspan: 10, class: 'muted' }, 'No MEDs.')));
    }
    $('med-page-info').textContent = `Page ${m.page ?? page} of ${Math.max(m.totalPages ?? 1, 1)} · ${m.total ?? 0} MED(s)`;
    $('med-prev').disabled = page <= 1;
    $('med-next').disabled = page >= (m.totalPages ?? 1);
  }

  function row(med) {
    const actions = h('td', { class: 'actions' });
    // Each step is enabled only in the states where the server allows it
    // (OPEN → RECEIVED → ANALYZED; OPEN or RECEIVED → CANCELLED; the refund
    // of an APPROVED MED that matches a received PIX).
    const open = med.status === 'OPEN';
    const underAnalysis = open || med.status === 'RECEIVED';
    const refundable = med.status === 'ANALYZED' && med.analysisResult === 'APPROVED' && med.isReconciled;
    const act = (label, testid, allowed, why, step) => {
      const b = h('button', { type: 'button', class: 'small', testid, disabled: !allowed, title: allowed ? '' : why }, label);
      b.addEventListener('click', ctx.busy(b, async () => {
        const m = await step();
        ctx.notice(`MED #${m.id}: ${m.status}${m.analysisResult ? ` (${m.analysisResult})` : ''}.`);
        await ctx.afterStateChange();
      }));
      actions.append(b);
    };
    act('Receive', 'med-receive', open, 'only an OPEN MED is received', () => call('POST', `/_sandbox/med/${med.id}/receive`));
    act('Approve', 'med-analyze-approve', underAnalysis, 'only an OPEN or RECEIVED MED is analysed', () => call('POST', `/_sandbox/med/${med.id}/analyze`, { body: { result: 'APPROVED', details: 'Approved from the console' } }));
    act('Reject', 'med-analyze-reject', underAnalysis, 'only an OPEN or RECEIVED MED is analysed', () => call('POST', `/_sandbox/med/${med.id}/analyze`, { body: { result: 'REJECTED', details: 'Rejected from the console' } }));
    act('Cancel', 'med-cancel', underAnalysis, 'only an OPEN or RECEIVED MED is cancelled', () => call('POST', `/_sandbox/med/${med.id}/cancel`));
    act('Refund', 'med-refund', refundable, 'only an APPROVED MED that matches a received PIX is refunded', () => call('POST', `/_sandbox/med/${med.id}/refund`));
    const o = med.originalTransaction;
    return h('tr', { testid: 'med-row', dataset: { medId: med.id, status: med.status } },
      h('td', {}, med.id),
      h('td', { testid: 'med-status' }, med.status),
      h('td', {}, show(med.cause)),
      h('td', { class: 'mono small' }, med.endToEnd),
      h('td', { class: 'num' }, o ? show(o.amount) : '—'),
      h('td', {}, [med.analysisResult, med.analysisDetails].filter(Boolean).join(': ') || '—'),
      h('td', {}, med.isReconciled
        ? h('button', { type: 'button', class: 'link', on: { click: () => ctx.guarded(() => ctx.openTransaction(med.originalTransactionId)) } }, `#${med.originalTransactionId}`)
        : 'no'),
      h('td', { class: 'small' }, med.createdAt),
      h('td', { class: 'small' }, med.updatedAt),
      actions);
  }

  function init() {
    $('med-refresh').addEventListener('click', ctx.busy($('med-refresh'), () => { page = 1; return load(); }));
    $('med-filter-status').addEventListener('change', () => { page = 1; ctx.guarded(load); });
    $('med-prev').addEventListener('click', ctx.busy($('med-prev'), () => { page = Math.max(1, page - 1); return load(); }));
    $('med-next').addEventListener('click', ctx.busy($('med-next'), () => { page += 1; return load(); }));
    $('med-open-form').addEventListener('submit', ctx.busy($('med-open-submit'), async () => {
      const a = ctx.account();
      if (!a) {
        throw new InputError('Open a MED: select the account that received the PIX first');
      }
      const amount = $('med-open-amount').value.trim();
      const ispb = $('med-open-ispb').value.trim();
      const description = $('med-open-description').value.trim();
      const m = await call('POST', '/_sandbox/med', {
        body: {
          accountId: a.id,
          endToEndId: $('med-open-e2e').value.trim(),
          cause: $('med-open-cause').value,
          amount: amount ? money(amount, 'Amount') : undefined,
          description: description || undefined,
          requestingBank: ispb ? { ispb } : undefined,
        },
      });
      ctx.notice(`MED #${m.id} opened (${m.status}, ${m.isReconciled ? 'reconciled' : 'not reconciled'}).`);
      await load();
    }));
  }

  init();
  return {
    load,
    accountChanged() {
      page = 1;
    },
  };
}
