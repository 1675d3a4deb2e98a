// The console's view in its URL fragment, so that a link opens it and the
// browser's Back and Forward move between views (Gap G-75):
// #workspace=<id>&tab=<tab>&account=<id>&tx=<transaction id>. Absent parts
// are the defaults: the transactions tab, no account, no transaction open.

// readLink is the view the URL names.
export function readLink() {
  const p = new URLSearchParams(window.location.hash.slice(1));
  return { workspace: p.get('workspace') || '', tab: p.get('tab') || '', account: p.get('account') || '', tx: p.get('tx') || '' };
}

// writeLink puts view in the URL: a new history entry when push, else in
// place of the current one; nothing when the URL names it already.
export function writeLink(view, push) {
  const p = new URLSearchParams();
  for (const k of ['workspace', 'tab', 'account', 'tx']) {
    if (view[k]) {
      p.set(k, String(view[k]));
    }
  }
  const hash = `#${p}`;
  if (hash === window.location.hash) {
    return;
  }
  if (push) {
    history.pushState(null, '', hash);
  } else {
    history.replaceState(null, '', hash);
  }
}
