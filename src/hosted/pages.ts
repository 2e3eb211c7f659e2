/**
 * The few pages a person sees in a hosted sign-in: the consent page (which application, where it
 * sends the browser back, what it may do) and error pages, and the redirects between them. Every
 * value shown is escaped; the pages load nothing from elsewhere and carry a strict
 * Content-Security-Policy.
 */
import type { ServerResponse } from 'node:http';

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1b1b1b}' +
  'h1{font-size:1.4rem}code{background:#f1f1f1;padding:0 .25rem;border-radius:3px}' +
  '.warn{background:#fff4e5;border-left:4px solid #f0a000;padding:.5rem .75rem}' +
  'form{display:flex;gap:.5rem;flex-wrap:wrap;margin-top:1.5rem}button{font:inherit;padding:.5rem 1rem;border-radius:6px;border:1px solid #888;cursor:pointer}' +
  'button.primary{background:#2c5f9e;color:#fff;border-color:#2c5f9e}';

export function sendPage(res: ServerResponse, status: number, title: string, bodyHtml: string): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy':
      "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' https: http://127.0.0.1:* http://localhost:*; frame-ancestors 'none'",
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
  });
  res.end(
    `<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(title)}</title><style>${STYLE}</style><body>${bodyHtml}</body></html>`,
  );
}

/** Sends the browser on (303 See Other), never cached, setting `cookies` on the way. */
export function redirect(res: ServerResponse, location: string, cookies: string[] = []): void {
  res.writeHead(303, { location, 'cache-control': 'no-store', ...(cookies.length ? { 'set-cookie': cookies } : {}) });
  res.end();
}

export function errorPage(res: ServerResponse, status: number, error: string, description: string): void {
  sendPage(
    res,
    status,
    'Sign-in failed',
    `<h1>Sign-in failed</h1><p>${escapeHtml(description)}</p><p>Error: <code>${escapeHtml(error)}</code></p><p>Start again from your assistant.</p>`,
  );
}

/** A sign-in the operator's list of YNAB users does not let in: why, and what to send the operator. */
export function notAllowedPage(res: ServerResponse, ynabUserId: string): void {
  sendPage(
    res,
    403,
    'Sign-in refused',
    `<h1>Sign-in refused</h1><p>This server lets in only the YNAB accounts its operator has named, and yours is not one of them. Nothing of your account was kept.</p>` +
      `<p>If you should have access, send the operator your YNAB user id: <code>${escapeHtml(ynabUserId)}</code></p>`,
  );
}

/**
 * YNAB's API Terms of Service, "Attribution & Intellectual Property", item 2 (https://api.ynab.com/#terms,
 * last updated May 28, 2025): the language every app shows, word for word.
 */
export const NOT_AFFILIATED_NOTICE = [
  'We are not affiliated, associated, or in any way officially connected with YNAB or any of its subsidiaries or affiliates. The official YNAB website can be found at https://www.ynab.com.',
  'The names YNAB and You Need A Budget, as well as related names, tradenames, marks, trademarks, emblems, and images are registered trademarks of YNAB.',
];

const NOTICE_HTML =
  `<footer style="margin-top:2rem;font-size:.85rem;color:#555">` +
  `<p>${escapeHtml(NOT_AFFILIATED_NOTICE[0]!).replace('https://www.ynab.com', '<a href="https://www.ynab.com">https://www.ynab.com</a>')}</p>` +
  `<p>${escapeHtml(NOT_AFFILIATED_NOTICE[1]!)}</p></footer>`;

export interface ConsentView {
  clientName: string;
  clientId: string;
  redirectHost: string;
  /** The whole redirect URI, shown as well: a look-alike path on a shared host must be visible. */
  redirectUri: string;
  /** The application only sends the browser back to this machine (a desktop or command-line app). */
  localRedirect: boolean;
  action: string;
  /** The sign-in is for the read-only endpoint: read-only access is the only choice. */
  readOnlyEndpoint: boolean;
}

export function consentPage(res: ServerResponse, view: ConsentView): void {
  const local = view.localRedirect
    ? `<p class="warn">This application receives the answer on this computer (<code>${escapeHtml(view.redirectHost)}</code>). Continue only if you started the connection from an application on this computer just now.</p>`
    : '';
  sendPage(
    res,
    200,
    'Connect to YNAB',
    `<h1>Connect ${escapeHtml(view.clientName)} to your YNAB budgets?</h1>` +
      (view.readOnlyEndpoint
        ? `<p><strong>${escapeHtml(view.clientName)}</strong> asks to use ynab-mcp's read-only endpoint with your YNAB account. After you sign in to YNAB, it can read your budgets and change nothing: YNAB is asked for read-only access.</p>`
        : `<p><strong>${escapeHtml(view.clientName)}</strong> asks to use ynab-mcp with your YNAB account. After you sign in to YNAB, it can read your budgets and, unless you choose read-only, add and change transactions, categories and payees.</p>`) +
      `<p>It will be sent back to <strong>${escapeHtml(view.redirectHost)}</strong> (<code>${escapeHtml(view.redirectUri)}</code>).</p>` +
      (view.clientName !== view.clientId ? `<p>Application id: <code>${escapeHtml(view.clientId)}</code></p>` : '') +
      local +
      `<form method="post" action="${escapeHtml(view.action)}">` +
      (view.readOnlyEndpoint
        ? `<button class="primary" name="decision" value="read-only">Continue to YNAB (read-only)</button>`
        : `<button class="primary" name="decision" value="allow">Continue to YNAB</button><button name="decision" value="read-only">Read-only access</button>`) +
      `<button name="decision" value="deny">Cancel</button></form>` +
      NOTICE_HTML,
  );
}
