// Drives @wordpress/api-fetch (the block editor's REST client) against a calpress server with a
// login cookie and a REST nonce, set up as WordPress's script-loader sets it up in wp-admin
// (wp_default_packages_inline_scripts: createRootURLMiddleware, nonceMiddleware, nonceEndpoint).
// Prints what it saw as one JSON object (tests/e2e/test_js_clients.py asserts on it); exits
// non-zero with the error otherwise.
//   node api_fetch_run.js <site url> <login> <password> <namespace: cms/v2 or wp/v2>
//
// api-fetch calls fetch with credentials: "include" and leaves cookies to the browser. Node's
// fetch keeps no cookies, so a small jar wraps globalThis.fetch: it keeps what the site sets and
// sends it back to the site, as a browser would. api-fetch's own code runs unchanged, including
// its nonce renewal, which calls globalThis.fetch(apiFetch.nonceEndpoint) directly. The wrapper
// also logs every request on the wire so the run can show what api-fetch sent.
"use strict";

const [url, login, password, namespace] = process.argv.slice(2);
const origin = new URL(url).origin;
const cookies = new Map();
const wire = [];
const networkFetch = globalThis.fetch;

globalThis.fetch = async (input, init = {}) => {
  const target = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
  const headers = new Headers(init.headers || {});
  if (target.origin === origin && cookies.size) {
    headers.set("Cookie", [...cookies].map(([name, value]) => `${name}=${value}`).join("; "));
  }
  const response = await networkFetch(target, { ...init, headers, redirect: "manual" });
  if (target.origin === origin) {
    for (const line of response.headers.getSetCookie()) {
      const pair = line.split(";")[0];
      const equals = pair.indexOf("=");
      cookies.set(pair.slice(0, equals).trim(), pair.slice(equals + 1).trim());
    }
  }
  wire.push({
    method: init.method || "GET",
    path: target.pathname,
    query: Object.fromEntries(target.searchParams),
    override: headers.get("X-HTTP-Method-Override"),
    nonce: headers.get("X-WP-Nonce"),
    status: response.status,
  });
  return response;
};

// Required after the wrapper is in place (api-fetch reads globalThis.fetch at call time anyway).
const apiFetch = require("@wordpress/api-fetch").default;

const STALE_NONCE = "0123456789";

async function logIn() {
  const response = await globalThis.fetch(origin + "/wp-login.php", {
    method: "POST",
    body: new URLSearchParams({ log: login, pwd: password, redirect_to: "/wp-admin/" }),
  });
  if (response.status !== 302 || cookies.size === 0) {
    throw new Error(`login failed: ${response.status} ${await response.text()}`);
  }
  return { status: response.status, location: response.headers.get("location"), cookies: [...cookies.keys()] };
}

async function failure(request) {
  try {
    await request;
  } catch (error) {
    return { code: error.code || null, status: (error.data && error.data.status) || null };
  }
  return null;
}

const since = (mark) => wire.slice(mark).map(({ method, path, query, override, nonce, status }) => ({ method, path, query, override, nonce, status }));

async function main() {
  const report = { login: await logIn() };

  // As wp-admin sets it up, but with a nonce that this session never issued (an expired one, a
  // nonce of another login): the first call is refused with rest_cookie_invalid_nonce, and
  // api-fetch fetches a fresh nonce from nonceEndpoint and retries.
  apiFetch.use(apiFetch.createRootURLMiddleware(url + "/wp-json/"));
  apiFetch.nonceMiddleware = apiFetch.createNonceMiddleware(STALE_NONCE);
  apiFetch.use(apiFetch.nonceMiddleware);
  apiFetch.nonceEndpoint = url + "/wp-admin/admin-ajax.php?action=rest-nonce";
  // httpV1Middleware (PUT, PATCH, DELETE sent as POST + X-HTTP-Method-Override) and
  // fetchAllMiddleware (per_page=-1 followed through Link rel="next") are in api-fetch's default
  // chain (src/index.ts, `middlewares`): using them again would only run them twice.

  let mark = wire.length;
  const me = await apiFetch({ path: `/${namespace}/users/me?context=edit` });
  report.renewal = {
    me: { id: me.id, slug: me.slug, roles: me.roles },
    nonce: apiFetch.nonceMiddleware.nonce,
    requests: since(mark),
  };

  mark = wire.length;
  const created = await apiFetch({ path: `/${namespace}/posts`, method: "POST", data: { title: "From api-fetch", content: "Written with a cookie and a nonce", status: "draft" } });
  const updated = await apiFetch({ path: `/${namespace}/posts/${created.id}`, method: "PUT", data: { title: "From api-fetch, renamed", status: "publish" } });
  const reread = await apiFetch({ path: `/${namespace}/posts/${created.id}?context=edit` });
  const deleted = await apiFetch({ path: `/${namespace}/posts/${created.id}?force=true`, method: "DELETE" });
  const gone = await failure(apiFetch({ path: `/${namespace}/posts/${created.id}` }));
  report.writes = {
    created: { id: created.id, status: created.status, type: created.type, self: created._links.self[0].href },
    updated: { title: updated.title.raw, status: updated.status },
    reread: { title: reread.title.raw, status: reread.status },
    deleted: { deleted: deleted.deleted, previousId: deleted.previous && deleted.previous.id },
    gone,
    requests: since(mark),
  };

  mark = wire.length;
  const everything = await apiFetch({ path: `/${namespace}/posts?per_page=-1` });
  report.fetchAll = {
    count: everything.length,
    unique: new Set(everything.map((post) => post.id)).size,
    types: [...new Set(everything.map((post) => post.type))],
    requests: since(mark),
  };

  report.nonceEndpointCalls = wire.filter((request) => request.path === "/wp-admin/admin-ajax.php").length;
  process.stdout.write(JSON.stringify(report));
}

main().catch((error) => {
  process.stderr.write(String(error && (error.stack || JSON.stringify(error))) + "\n");
  process.exit(1);
});
