// Small DOM helpers. Text from the server is only ever set as text, never as
// HTML: webhook bodies and receiver answers are shown as they are.

// $ finds the element with a data-testid.
export function $(testid, root = document) {
  return root.querySelector(`[data-testid="${testid}"]`);
}

// h builds an element: h('td', {class: 'num', testid: 'x', on: {click}}, 'text', child).
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) {
      continue;
    }
    if (k === 'on') {
      for (const [ev, fn] of Object.entries(v)) {
        el.addEventListener(ev, fn);
      }
    } else if (k === 'testid') {
      el.dataset.testid = v;
    } else if (k === 'class') {
      el.className = v;
    } else if (k === 'dataset') {
      Object.assign(el.dataset, v);
    } else if (k in el && typeof v !== 'string') {
      el[k] = v;
    } else {
      el.setAttribute(k, v === true ? '' : v);
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === undefined || c === null || c === false) {
      continue;
    }
    if (Array.isArray(c)) {
      append(el, c);
    } else if (c instanceof Node) {
      el.appendChild(c);
    } else {
      el.appendChild(document.createTextNode(String(c)));
    }
  }
}

// show returns v as display text: empty values become an em dash.
export function show(v) {
  if (v === undefined || v === null || v === '') {
    return '—';
  }
  if (typeof v === 'object') {
    return JSON.stringify(v);
  }
  return String(v);
}

// time writes an instant the server sent (RFC 3339, any number of fractional
// digits) as the API writes its timestamps: ISO 8601 in UTC with
// milliseconds, 2026-03-02T12:00:00.000Z. The control plane's clock reports
// its now with as many digits as it needs; shown through here it reads as
// every other time on the page. Text that is not a UTC instant is returned
// as is.
export function time(v) {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?Z$/.exec(String(v ?? ''));
  if (!m) {
    return show(v);
  }
  return `${m[1]}.${(m[2] || '').padEnd(3, '0').slice(0, 3)}Z`;
}

// fields renders a definition list of [label, value, testid?] rows.
export function fields(rows) {
  return h('dl', { class: 'fields' }, rows.map(([label, value, testid]) => [
    h('dt', {}, label),
    h('dd', { testid }, value instanceof Node ? value : show(value)),
  ]));
}

// pretty indents a compact JSON text for reading without re-encoding it: the
// literals (money such as 100.00 included) stay exactly as they were sent.
// Text that is not JSON comes back unchanged.
export function pretty(text) {
  if (!text) {
    return '';
  }
  try {
    JSON.parse(text);
  } catch {
    return text;
  }
  let out = '';
  let depth = 0;
  let inString = false;
  const nl = () => '\n' + '  '.repeat(depth);
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      out += c;
      if (c === '\\') {
        out += text[++i];
      } else if (c === '"') {
        inString = false;
      }
      continue;
    }
    switch (c) {
      case '"':
        inString = true;
        out += c;
        break;
      case '{':
      case '[': {
        const close = c === '{' ? '}' : ']';
        let j = i + 1;
        while (j < text.length && /\s/.test(text[j])) {
          j++;
        }
        if (text[j] === close) {
          out += c + close;
          i = j;
        } else {
          depth++;
          out += c + nl();
        }
        break;
      }
      case '}':
      case ']':
        depth--;
        out += nl() + c;
        break;
      case ',':
        out += c + nl();
        break;
      case ':':
        out += ': ';
        break;
      default:
        if (!/\s/.test(c)) {
          out += c;
        }
    }
  }
  return out;
}
