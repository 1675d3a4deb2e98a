// Scenarios: the X-Sandbox-Scenario catalogue (GET /_sandbox/scenarios), and
// a Trigger button per scenario: it creates, as the selected account, a
// transaction that carries the scenario.

import { InputError, call, money } from './api.js';
import { $, h, show } from './dom.js';

// cashOutKey is the key and keyType a cash-out sends for a DICT key (phones
// without +55, EVPs as RANDOM, CPF and CNPJ as DOCUMENT).
function cashOutKey(k) {
  switch (k.type) {
    case 'PHONE': return { key: k.key.replace(/^\+55/, ''), keyType: 'PHONE' };
    case 'EVP': return { key: k.key, keyType: 'RANDOM' };
    case 'CPF': case 'CNPJ': return { key: k.key, keyType: 'DOCUMENT' };
    default: return { key: k.key, keyType: 'EMAIL' };
  }
}

// uuid4 is a random UUID v4 (crypto.randomUUID needs a secure context; a
// console opened over plain HTTP on a LAN address is not one).
function uuid4() {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const x = Array.from(b, (v) => v.toString(16).padStart(2, '0')).join('');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

export function scenariosPanel(ctx) {
  let cached = null;

  async function list() {
    if (!cached) {
      const r = await call('GET', '/_sandbox/scenarios');
      cached = r;
      $('scenario-header').textContent = r.header || 'X-Sandbox-Scenario';
    }
    return cached.data || [];
  }

  function session() {
    if (!ctx.session()) {
      throw new InputError('Trigger: select the account the transaction belongs to first');
    }
    return ctx.session();
  }

  // payee is another sandbox account's PIX key: a PIX out needs a destination
  // that exists; the scenario, not the payee, decides the outcome.
  function payee() {
    const me = ctx.account();
    for (const a of ctx.accounts()) {
      if (a.id !== me.id && a.pixKeys && a.pixKeys.length) {
        return { account: a, key: a.pixKeys[0] };
      }
    }
    throw new InputError('Trigger: a PIX out needs another account with a PIX key as its payee');
  }

  // trigger runs scenario sc through operation op.
  async function trigger(sc, op) {
    const s = session();
    const headers = { 'X-Sandbox-Scenario': sc.name };
    const stamp = `${sc.name.toLowerCase()}-${Date.now()}`;
    switch (op) {
      case 'cashout.create': {
        const p = payee();
        const { key, keyType } = cashOutKey(p.key);
        const r = await s.call('POST', '/api/pix/cash-out', {
          headers,
          body: { value: money('1.00', 'value'), externalId: stamp, description: `Scenario ${sc.name}`, details: { key, keyType, name: p.account.name, document: p.account.document } },
        });
        // The cash-out answers its UUID; the console's detail wants the number.
        const x = await call('GET', `/_sandbox/transactions/${encodeURIComponent(r.transactionId)}`);
        return { id: x.id, what: `cash-out #${x.id} (${r.status})` };
      }
      case 'transfer.create': {
        const p = payee();
        const r = await s.call('POST', '/dict/pix', {
          headers: { ...headers, 'x-idempotency-key': uuid4() },
          body: { pixKey: p.key.key, description: `Scenario ${sc.name}`, payment: { currency: 'BRL', amount: money('1.00', 'amount') } },
        });
        return { id: r.id, what: `DICT transfer ${r.id} (${r.type})` };
      }
      case 'cashin.create': {
        const r = await s.call('POST', '/api/pix/cash-in', {
          headers,
          body: { transaction: { value: money('1.00', 'value'), description: `Scenario ${sc.name}`, externalId: stamp }, payer: { fullName: 'Pagador da Silva', document: '52998224725' } },
        });
        return { id: r.transactionId, what: `cash-in charge ${r.transactionId} (${r.status})` };
      }
      case 'cob.put': {
        const txid = `sc${Date.now()}${Math.random().toString(36).slice(2)}`.replace(/[^A-Za-z0-9]/g, '').padEnd(26, '0').slice(0, 35);
        const r = await s.call('PUT', `/cob/${txid}`, { headers, body: { calendario: { expiracao: 3600 }, valor: { original: '1.00' } } });
        return { id: null, what: `cob ${r.txid} (${r.status})` };
      }
      default:
        throw new InputError(`Trigger: the console cannot run ${op}; run: pixsandbox trigger ${sc.name} --account ${ctx.account().id}`);
    }
  }

  // drivable are the operations the console runs; the others are offered as
  // the CLI command.
  const drivable = ['cashout.create', 'transfer.create', 'cashin.create', 'cob.put'];

  function triggerCell(sc) {
    const cell = h('td', { class: 'actions' });
    for (const op of sc.operations || []) {
      if (!drivable.includes(op)) {
        cell.append(h('div', { class: 'small muted mono' }, `pixsandbox trigger ${sc.name} --operation ${op}`));
        continue;
      }
      const b = h('button', { type: 'button', class: 'small', testid: 'scenario-trigger', dataset: { operation: op } }, op.replace('.create', '').replace('.put', ''));
      b.addEventListener('click', ctx.busy(b, async () => {
        const r = await trigger(sc, op);
        ctx.notice(`Scenario ${sc.name}: created ${r.what}. Move the clock to see it play out.`);
        if (r.id !== null && r.id !== undefined) {
          await ctx.openTransaction(r.id);
        }
      }));
      cell.append(b);
    }
    return cell;
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
        h('td', { class: 'small' }, show(sc.spec)),
        triggerCell(sc)));
    }
    if (!all.length) {
      body.append(h('tr', {}, h('td', { colspan: 7, class: 'muted' }, 'No scenarios.')));
    }
  }

  return { load, list };
}
