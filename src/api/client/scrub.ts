/**
 * The one scrubber for everything shown to anyone (logs, errors, `status`, tool results,
 * resources): it removes the secrets it is given (the tokens a client has used), anything shaped
 * like a bearer credential, and credentials carried by URLs: the user info of
 * `https://user:pass@host` and the values of token-like query or fragment parameters
 * (`?access_token=…`, `#refresh_token=…`, `&api_key=…`). A base URL configured with a token in it
 * must not leak through a banner, an error message or a status line.
 *
 * Bare `name=value` pairs outside URLs are scrubbed only for names that can only mean a
 * credential (access_token, refresh_token, id_token, client_secret), so that budget text such as
 * a memo "promo code=SPRING" stays as typed.
 */

export const REDACTED = '[redacted]';

/** Query parameter names that carry a credential: *token, *secret, password, *key, auth, sig, code, … */
const TOKENISH_PARAM =
  /^(?:[\w.-]*[_.-])?(?:token|secret|password|passwd|pwd|pass|api[_-]?key|apikey|key|auth|authorization|credentials?|signature|sig|code|session(?:[_-]?id)?|sid|jwt|bearer)$/i;

/** Names that mean a credential wherever they appear as `name=value` or a JSON member. */
const CREDENTIAL_NAMES = 'access_token|refresh_token|id_token|client_secret';

// A URL with a scheme, up to the first character that cannot be part of it in running text.
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`\\]+/gi;
// scheme://userinfo@ — userinfo has no '/', '?', '#' or '@'.
const USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#@]+)@/i;
// A parameter inside the query or fragment of a URL.
const URL_PARAM = /([?&#;])([^=&#;?\s]+)=([^&#;\s]*)/g;
const BARE_CREDENTIAL = new RegExp(`(^|[^\\w-])(${CREDENTIAL_NAMES})=([^&#;\\s"'<>]+)`, 'gi');
const JSON_CREDENTIAL = new RegExp(`("(?:${CREDENTIAL_NAMES})"\\s*:\\s*")((?:[^"\\\\]|\\\\.)+)"`, 'gi');
const BEARER = /(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi;
const BEARER_WORD = /bearer/i;

function scrubUrl(url: string): string {
  let out = url.replace(USERINFO, (_, scheme: string) => `${scheme}${REDACTED}@`);
  const start = out.search(/[?#]/);
  if (start < 0) return out;
  const head = out.slice(0, start);
  const tail = out.slice(start).replace(URL_PARAM, (whole, sep: string, name: string, value: string) => {
    let decoded = name;
    try {
      decoded = decodeURIComponent(name);
    } catch {
      // A malformed escape: judge the name as written.
    }
    return value && value !== REDACTED && TOKENISH_PARAM.test(decoded) ? `${sep}${name}=${REDACTED}` : whole;
  });
  out = head + tail;
  return out;
}

/** Removes `secrets` (8 characters or longer), bearer credentials and URL credentials from `text`. */
export function scrub(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 8 && out.includes(s)) out = out.split(s).join(REDACTED);
  if (out.includes('://')) out = out.replace(URL_IN_TEXT, scrubUrl);
  if (out.includes('=')) out = out.replace(BARE_CREDENTIAL, (_, before: string, name: string) => `${before}${name}=${REDACTED}`);
  if (out.includes('"')) out = out.replace(JSON_CREDENTIAL, (_, head: string) => `${head}${REDACTED}"`);
  // Most text has no bearer credential: a plain search is a seventh of the replace that finds none.
  return BEARER_WORD.test(out) ? out.replace(BEARER, `$1${REDACTED}`) : out;
}
