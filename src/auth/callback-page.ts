/**
 * The pages the loopback redirect serves to the browser: the outcome of a sign-in, and for the
 * implicit grant the relay page whose script hands the URL fragment (which browsers never send
 * to a server) back to the loopback server with a same-origin POST.
 */

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Headers for every loopback answer: nothing cached, no Referer carrying the code onwards, no framing. */
export const PAGE_HEADERS = {
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
} as const;

export function resultPage(ok: boolean, message: string): string {
  const title = ok ? 'ynab-mcp: signed in' : 'ynab-mcp: sign-in failed';
  return `<!doctype html><html lang="en"><meta charset="utf-8"><title>${title}</title>
<body style="font-family: system-ui, sans-serif; max-width: 40em; margin: 3em auto">
<h1>${ok ? 'Signed in' : 'Sign-in failed'}</h1>
<p>${escapeHtml(message)}</p>
<p>You can close this window and return to the terminal.</p>
</body></html>
`;
}

/**
 * The implicit grant's relay page. The script removes the token from the address bar and the
 * history first, then posts the fragment's fields unchanged; the server checks `state`.
 * `nonce` lets the Content-Security-Policy allow exactly this script.
 */
export function relayPage(nonce: string): string {
  return `<!doctype html><html lang="en"><meta charset="utf-8"><title>ynab-mcp: finishing sign-in</title>
<body style="font-family: system-ui, sans-serif; max-width: 40em; margin: 3em auto">
<h1>Finishing the sign-in&hellip;</h1>
<p id="out">Handing the token to ynab-mcp.</p>
<noscript><p>This page needs JavaScript to pass the token (which the browser keeps in the address's fragment) to ynab-mcp.</p></noscript>
<script nonce="${nonce}">
(function () {
  var fields = location.hash.length > 1 ? location.hash.slice(1) : '';
  history.replaceState(null, '', location.pathname);
  var out = document.getElementById('out');
  fetch(location.pathname, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: fields })
    .then(function (r) { return r.text(); })
    .then(function (t) { out.textContent = t + ' You can close this window.'; },
          function () { out.textContent = 'Could not reach ynab-mcp: is "ynab-mcp login" still running?'; });
})();
</script>
</body></html>
`;
}

export function relayPageCsp(nonce: string): string {
  return `default-src 'none'; script-src 'nonce-${nonce}'; connect-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'`;
}
