// Charges: a cash-in charge (POST /api/pix/cash-in, with its QR code image)
// or a cob (PUT /cob/{txid}), and a Pay button that pays it as the payer's bank
// would (POST /_sandbox/payments).

import { InputError, call, currentWorkspace, money, money2, wholeNumber } from './api.js';
import { $, h, show } from './dom.js';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function randomText(n) {
  const bytes = new Uint8Array(n);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => ALNUM[b % ALNUM.length]).join('');
}

export function chargesPanel(ctx) {
  // Charges created in this page, per workspace and account, newest first.
  const byAccount = new Map();

  function charges() {
    const a = ctx.account();
    if (!a) {
      return [];
    }
    const key = `${currentWorkspace()}/${a.id}`;
    if (!byAccount.has(key)) {
      byAccount.set(key, []);
    }
    return byAccount.get(key);
  }

  function freshDefaults() {
    $('cashin-external-id').value = `console-${Date.now().toString(36)}-${randomText(4)}`;
    $('cob-txid').value = randomText(32);
  }

  function scenarioHeader(testid) {
    const v = $(testid).value;
    return v ? { 'X-Sandbox-Scenario': v } : undefined;
  }

  // refresh re-reads a charge's state from the API.
  async function refresh(c) {
    if (c.kind === 'cash-in') {
      const t = await call('GET', `/_sandbox/transactions/${c.transactionId}`);
      c.status = t.status;
      c.amount = t.amount;
      c.endToEndId = t.endToEndId;
      c.processedAt = t.processedAt;
      c.errorCode = t.errorCode;
    } else {
      const cob = await ctx.session().call('GET', `/cob/${encodeURIComponent(c.txid)}`);
      c.status = cob.status;
      c.amount = cob.valor.original;
      c.pixCode = cob.pixCopiaECola;
      const paid = (cob.pix || [])[0];
      c.endToEndId = paid ? paid.endToEndId : '';
      c.processedAt = paid ? paid.horario : '';
    }
  }

  // watchDeliveries polls the charge's webhook deliveries for a few seconds
  // after a payment: the job runner sends them right after the payment answers.
  async function watchDeliveries(c) {
    for (let i = 0; i < 20; i++) {
      const r = await call('GET', '/_sandbox/webhook-deliveries', { query: { transactionId: c.transactionId } });
      const ds = r.data || [];
      const lines = ds.map((d) => `${d.eventType} → ${d.url}: ${d.status}${d.attempts.length ? ` (HTTP ${d.attempts[d.attempts.length - 1].statusCode || 'none'})` : ''}`);
      if (JSON.stringify(lines) !== JSON.stringify(c.deliveries || [])) {
        c.deliveries = lines;
        render();
      }
      if (ds.length && ds.every((d) => d.attempts.length > 0)) {
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    if (!(c.deliveries || []).length) {
      c.deliveries = ['No webhook delivery: the account has no cash_in target (register one in the Webhooks tab).'];
      render();
    }
  }

  async function pay(c) {
    const p = await call('POST', '/_sandbox/payments', { body: { pixCode: c.pixCode } });
    c.transactionId = c.transactionId || p.transactionId;
    c.payment = `Paid ${p.amount} (fee ${p.feeAmount}, credited ${p.finalAmount}); end-to-end id ${p.endToEndId}.`;
    await refresh(c);
    render();
    ctx.notice(`Charge paid: ${p.amount}.`);
    await ctx.afterStateChange();
    await ctx.guarded(() => watchDeliveries(c));
  }

  function card(c) {
    const payBtn = h('button', { type: 'button', testid: 'charge-pay' }, 'Pay');
    payBtn.disabled = !(c.status === 'PENDING' || c.status === 'ATIVA');
    payBtn.addEventListener('click', ctx.busy(payBtn, () => pay(c)));
    const refreshBtn = h('button', { type: 'button', class: 'secondary', testid: 'charge-refresh' }, 'Refresh');
    refreshBtn.addEventListener('click', ctx.busy(refreshBtn, async () => { await refresh(c); render(); }));
    const code = h('textarea', { readonly: true, rows: 3, testid: 'charge-pixcode' });
    code.value = c.pixCode;
    const copyBtn = h('button', { type: 'button', class: 'secondary', testid: 'charge-copy' }, 'Copy code');
    copyBtn.addEventListener('click', ctx.busy(copyBtn, async () => {
      try {
        await navigator.clipboard.writeText(c.pixCode);
        ctx.notice('BR Code copied.');
      } catch {
        code.focus();
        code.select();
        throw new InputError('The browser refused clipboard access here: the code is selected, copy it with Ctrl+C');
      }
    }));
    const buttons = h('div', { class: 'row' }, payBtn, copyBtn, refreshBtn);
    if (c.kind === 'cash-in') {
      const open = h('button', { type: 'button', class: 'secondary', testid: 'charge-open' }, 'Details');
      open.addEventListener('click', ctx.busy(open, () => ctx.openTransaction(c.transactionId)));
      buttons.append(open);
    } else if (c.status === 'ATIVA') {
      const cancel = h('button', { type: 'button', class: 'secondary', testid: 'charge-cancel' }, 'Cancel');
      cancel.addEventListener('click', ctx.busy(cancel, async () => {
        await ctx.session().call('PATCH', `/cob/${encodeURIComponent(c.txid)}`, { body: { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' } });
        await refresh(c);
        render();
      }));
      buttons.append(cancel);
    }
    let qr;
    if (c.qrCodeImage) {
      qr = h('img', { class: 'qr', testid: 'charge-qr', alt: 'QR code of the BR Code', src: `data:image/png;base64,${c.qrCodeImage}` });
      qr.addEventListener('error', () => ctx.report(new Error('The QR code image returned by the API could not be decoded as a PNG')));
    } else {
      qr = h('div', { class: 'qr placeholder muted small' },
        c.kind === 'cob' ? 'No QR image: use the copy-paste code.' : 'Created without generateQrCode: no image.');
    }
    const title = c.kind === 'cash-in'
      ? `Cash-in #${c.transactionId} · ${c.externalId}`
      : `Cob ${c.txid}`;
    return h('article', {
      class: 'card charge',
      testid: 'charge-card',
      dataset: { kind: c.kind, transactionId: c.transactionId || '', txid: c.txid || '', status: c.status },
    },
    h('div', { class: 'section-head' },
      h('h4', {}, title),
      h('span', { class: `badge status-${String(c.status).toLowerCase()}`, testid: 'charge-status' }, c.status)),
    h('div', { class: 'charge-body' },
      qr,
      h('div', { class: 'grow' },
        h('div', {}, 'Amount ', h('strong', { testid: 'charge-amount' }, show(c.amount))),
        h('div', { class: 'small' }, `Expires ${show(c.expirationDate)}`),
        c.endToEndId ? h('div', { class: 'small', testid: 'charge-e2e' }, `End-to-end id ${c.endToEndId} · paid ${show(c.processedAt)}`) : '',
        c.errorCode ? h('div', { class: 'small' }, `Error ${c.errorCode}`) : '',
        h('label', { class: 'small' }, 'Copy-paste code (BR Code)', code),
        buttons,
        c.payment ? h('div', { class: 'small', testid: 'charge-payment' }, c.payment) : '',
        c.deliveries && c.deliveries.length
          ? h('ul', { class: 'plain small', testid: 'charge-deliveries' }, c.deliveries.map((d) => h('li', {}, d)))
          : '')));
  }

  function render() {
    const list = $('charge-list');
    list.replaceChildren();
    if (!ctx.account()) {
      list.append(h('p', { class: 'muted' }, 'Select an account to create charges.'));
      return;
    }
    for (const c of charges()) {
      list.append(card(c));
    }
  }

  async function fillScenarios() {
    const all = await ctx.scenarios();
    for (const [testid, op] of [['cashin-scenario', 'cashin.create'], ['cob-scenario', 'cob.put']]) {
      const sel = $(testid);
      if (sel.options.length > 1) {
        continue;
      }
      for (const sc of all.filter((s) => (s.operations || []).includes(op))) {
        sel.append(h('option', { value: sc.name, title: sc.summary }, sc.name));
      }
    }
  }

  function requireSession() {
    if (!ctx.session()) {
      throw new InputError('Select an account first: charges are created with its token');
    }
    return ctx.session();
  }

  function init() {
    freshDefaults();
    $('cashin-form').addEventListener('submit', ctx.busy($('cashin-submit'), async () => {
      const s = requireSession();
      const exp = $('cashin-expiration').value.trim();
      const body = {
        transaction: {
          value: money($('cashin-value').value, 'Amount'),
          description: $('cashin-description').value,
          externalId: $('cashin-external-id').value.trim(),
          expirationTime: exp ? wholeNumber(exp, 'Expires in') : undefined,
          generateQrCode: $('cashin-qr').checked,
        },
        payer: { fullName: $('cashin-payer-name').value, document: $('cashin-payer-document').value.trim() },
      };
      const r = await s.call('POST', '/api/pix/cash-in', { body, headers: scenarioHeader('cashin-scenario') });
      const c = {
        kind: 'cash-in', transactionId: r.transactionId, externalId: r.externalId, status: r.status,
        pixCode: r.pixCode, qrCodeImage: r.qrCodeImage, expirationDate: r.expirationDate,
      };
      charges().unshift(c);
      await ctx.guarded(() => refresh(c));
      render();
      freshDefaults();
      ctx.notice(`Charge #${r.transactionId} created (${r.status}).`);
    }));
    $('cob-form').addEventListener('submit', ctx.busy($('cob-submit'), async () => {
      const s = requireSession();
      const txid = $('cob-txid').value.trim();
      if (!/^[A-Za-z0-9]{26,35}$/.test(txid)) {
        throw new InputError('txid: 26 to 35 letters and digits');
      }
      const req = $('cob-payer-request').value.trim();
      const body = {
        calendario: { expiracao: wholeNumber($('cob-expiration').value || '3600', 'Expires in') },
        valor: { original: money2($('cob-value').value, 'Amount') },
        solicitacaoPagador: req || undefined,
      };
      const cob = await s.call('PUT', `/cob/${encodeURIComponent(txid)}`, { body, headers: scenarioHeader('cob-scenario') });
      // The Central Bank route returns no image: the control plane draws one.
      const qr = await call('POST', '/_sandbox/qrcode', { body: { pixCode: cob.pixCopiaECola } });
      charges().unshift({
        kind: 'cob', txid: cob.txid, status: cob.status, amount: cob.valor.original, pixCode: cob.pixCopiaECola,
        qrCodeImage: qr.qrCodeImage, expirationDate: `${cob.calendario.criacao} + ${cob.calendario.expiracao} s`,
      });
      render();
      freshDefaults();
      ctx.notice(`Cob ${cob.txid} created (${cob.status}).`);
    }));
  }

  init();
  return {
    async load() {
      render();
      await fillScenarios();
    },
    accountChanged: render,
  };
}
