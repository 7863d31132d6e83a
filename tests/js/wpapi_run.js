// Drives node-wpapi against a calpress server the way sites and import tools use it, and prints
// what it got back as one JSON object (tests/e2e/test_js_clients.py asserts on it); exits
// non-zero with the error otherwise.
//   node wpapi_run.js discovered <site url> <user> <application password>
//       WPAPI.discover(url): cms/v2 posts with paging (X-WP-Total, X-WP-TotalPages, Link), a post
//       created with the application password, cal/events/v1 events; then the client's built-in
//       wp/v2 routes without discovery, which calpress answers only with its aliases on.
//   node wpapi_run.js defaults <site url> <user> <application password> <image file>
//       new WPAPI({ endpoint: url + "/wp-json", username, password }) without discovery, on the
//       client's built-in wp/v2 routes (the server runs with CALPRESS_COMPAT_ALIASES=1), and
//       tribe/events/v1 through registerRoute and through discovery.
"use strict";
const WPAPI = require("wpapi");

const ids = (items) => items.map((item) => item.id);

// What node-wpapi made of a collection's paging headers: `_paging` is only there when the answer
// had X-WP-TotalPages (lib/http-transport.js, createPaginationObject).
function paging(collection) {
  const found = collection._paging;
  if (!found) {
    return null;
  }
  return { total: found.total, totalPages: found.totalPages, links: Object.keys(found.links).sort(), hasNext: Boolean(found.next), hasPrev: Boolean(found.prev) };
}

// Three pages of ten (the last one shorter) through `_paging.next`, a WPRequest bound to the Link header's rel="next".
async function walkPosts(posts) {
  const first = await posts().perPage(10);
  const second = await first._paging.next.get();
  const third = await second._paging.next.get();
  return { pages: [ids(first), ids(second), ids(third)], paging: [paging(first), paging(second), paging(third)] };
}

// The error an API call failed with: node-wpapi hands on the answer's JSON ({code, message, data}).
async function failure(request) {
  try {
    await request;
  } catch (error) {
    return { code: error.code || null, status: (error.data && error.data.status) || error.status || null };
  }
  return null;
}

async function discovered(url, username, password) {
  const site = await WPAPI.discover(url);
  site.auth({ username, password });
  const cms = site.namespace("cms/v2");
  const report = { endpoint: site._options.endpoint, posts: await walkPosts(() => cms.posts()) };
  const created = await cms.posts().create({ title: "Written by node-wpapi", content: "Hello from Node", status: "publish" });
  report.created = { id: created.id, title: created.title.raw, status: created.status, type: created.type, author: created.author };
  const read = await cms.posts().id(created.id);
  report.readBack = { id: read.id, title: read.title.rendered };

  // The calendar namespace answers {events, total, total_pages, rest_url...} and pages with
  // X-TEC-Total / X-TEC-TotalPages, as The Events Calendar does, not X-WP-Total: node-wpapi
  // builds `_paging` from X-WP-TotalPages only, so a calendar listing has no `_paging` and its
  // totals are read from the body.
  const calendar = site.namespace("cal/events/v1");
  const events = await calendar.events();
  const onePerPage = await calendar.events().perPage(1);
  const first = events.events[0];
  const single = await calendar.events().id(first.id);
  report.events = {
    titles: events.events.map((event) => event.title).sort(),
    total: events.total,
    totalPages: events.total_pages,
    paging: paging(events),
    onePerPage: { count: onePerPage.events.length, total: onePerPage.total, totalPages: onePerPage.total_pages, nextRestUrl: onePerPage.next_rest_url || null, paging: paging(onePerPage) },
    single: { id: single.id, title: single.title, startDate: single.start_date },
  };

  // The client's built-in routes are WordPress's (wp/v2): without the aliases calpress has none.
  const plain = new WPAPI({ endpoint: url + "/wp-json", username, password });
  report.defaultRoutes = {
    list: await failure(plain.posts().get()),
    create: await failure(plain.posts().create({ title: "Never stored", status: "publish" })),
  };
  return report;
}

async function defaults(url, username, password, image) {
  const wp = new WPAPI({ endpoint: url + "/wp-json", username, password });
  const report = { posts: await walkPosts(() => wp.posts()) };
  const created = await wp.posts().create({ title: "Default routes", content: "Through wp/v2", status: "draft" });
  const updated = await wp.posts().id(created.id).update({ title: "Default routes, updated", status: "publish" });
  report.created = { id: created.id, status: created.status, type: created.type, self: created._links.self[0].href };
  report.updated = { id: updated.id, title: updated.title.raw, status: updated.status };
  const categories = await wp.categories();
  report.categories = { names: categories.map((term) => term.name).sort(), taxonomies: [...new Set(categories.map((term) => term.taxonomy))], paging: paging(categories) };
  const media = await wp.media().file(image).create({ title: "Through wp/v2/media", alt_text: "A default route", post: created.id });
  report.media = { id: media.id, title: media.title.raw, altText: media.alt_text, mimeType: media.mime_type, width: media.media_details.width, post: media.post, sourceUrl: media.source_url, self: media._links.self[0].href };

  // The Events Calendar's routes are not among node-wpapi's defaults: register them by hand...
  wp.events = wp.registerRoute("tribe/events/v1", "/events/(?P<id>\\d+)");
  const events = await wp.events();
  const first = events.events[0];
  const single = await wp.events().id(first.id);
  const renamed = await wp.events().id(first.id).update({ title: first.title + " (moved)" });
  report.events = {
    titles: events.events.map((event) => event.title).sort(),
    total: events.total,
    restUrl: events.rest_url,
    paging: paging(events),
    single: { id: single.id, title: single.title, restUrl: single.rest_url || null },
    renamed: { id: renamed.id, title: renamed.title },
  };
  // ...or find them by discovery, where the site description lists tribe/events/v1 too.
  const site = await WPAPI.discover(url);
  const discoveredEvents = await site.namespace("tribe/events/v1").events();
  report.discovered = { namespaces: Object.keys(site._ns).sort(), titles: discoveredEvents.events.map((event) => event.title).sort() };
  return report;
}

async function main() {
  const [mode, url, username, password, image] = process.argv.slice(2);
  const runs = { discovered, defaults };
  if (!runs[mode]) {
    throw new Error(`unknown mode ${mode}: discovered or defaults`);
  }
  process.stdout.write(JSON.stringify(await runs[mode](url, username, password, image)));
}

main().catch((error) => {
  process.stderr.write(String(error && (error.stack || JSON.stringify(error))) + "\n");
  process.exit(1);
});
