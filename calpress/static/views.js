/* calpress calendar views: previous/next, view selector and the events bar re-render the view
   through the views route (cal/views/v2/html) without a page load; without JavaScript every one
   of them is a plain link or form. */
(function () {
  "use strict";
  function container(node) { return node.closest('[data-js="tribe-events-view"]'); }
  function nonces(view) {
    var found = view.querySelector('[data-js="tribe-events-view-nonce-data"]');
    try { return found ? JSON.parse(found.textContent) : {}; } catch (error) { return {}; }
  }
  function withoutHash(url) { return url.split("#")[0]; }
  var shown = withoutHash(window.location.href);
  // The events bar on a phone: its search, date and filters fold behind a search button (the
  // reference's tribe-events-c-events-bar__search-button). Without JavaScript the button stays
  // hidden and the bar open; on a wide screen the stylesheet hides the button and keeps it open.
  var narrow = window.matchMedia ? window.matchMedia("(max-width: 640px)") : null;
  function searchButtons(root) { return root.querySelectorAll('[data-js="tribe-events-search-button"]'); }
  function setOpen(button, open) {
    var box = document.getElementById(button.getAttribute("aria-controls"));
    button.setAttribute("aria-expanded", open ? "true" : "false");
    if (box) { box.hidden = !open; }
  }
  function isOpen(root) {
    var button = searchButtons(root)[0];
    return button ? button.getAttribute("aria-expanded") === "true" : null;
  }
  function setUpBars(root, open) {
    Array.prototype.forEach.call(searchButtons(root), function (button) {
      button.hidden = false;
      setOpen(button, typeof open === "boolean" ? open : !(narrow && narrow.matches));
    });
  }
  setUpBars(document);
  if (narrow) {
    var follow = function () { setUpBars(document, !narrow.matches); };
    if (narrow.addEventListener) { narrow.addEventListener("change", follow); } else if (narrow.addListener) { narrow.addListener(follow); }
  }
  function load(view, url, push) {
    var rest = view.getAttribute("data-view-rest-url");
    if (!rest) { window.location.href = url; return; }
    view.setAttribute("aria-busy", "true");
    var barOpen = isOpen(view);
    var target = rest + (rest.indexOf("?") === -1 ? "?" : "&") + "url=" + encodeURIComponent(withoutHash(url));
    var given = nonces(view);
    ["tvn1", "tvn2"].forEach(function (name) { if (given[name]) { target += "&" + name + "=" + encodeURIComponent(given[name]); } });
    fetch(target, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (response) {
        if (!response.ok) { throw new Error("view " + response.status); }
        return response.text();
      })
      .then(function (html) {
        var holder = document.createElement("div");
        holder.innerHTML = html.trim();
        var fresh = holder.firstElementChild;
        if (!fresh) { throw new Error("empty view"); }
        view.replaceWith(fresh);
        setUpBars(fresh, barOpen === null ? undefined : barOpen);
        var data = fresh.querySelector('[data-js="tribe-events-view-data"]');
        var title = data ? JSON.parse(data.textContent).title : null;
        if (push) { window.history.pushState({ calpressView: true }, "", url); }
        shown = withoutHash(url);
        if (title) { document.title = title + " \u2013 " + document.title.split(" \u2013 ").pop(); }
        var heading = fresh.querySelector(".tribe-events-header__title");
        if (heading) { heading.setAttribute("tabindex", "-1"); heading.focus({ preventScroll: true }); }
      })
      .catch(function () { window.location.href = url; });
  }
  document.addEventListener("click", function (event) {
    var toggle = event.target.closest('[data-js="tribe-events-search-button"]');
    if (toggle) {
      setOpen(toggle, toggle.getAttribute("aria-expanded") !== "true");
      return;
    }
    var link = event.target.closest('a[data-js="tribe-events-view-link"]');
    if (!link || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) { return; }
    var view = container(link);
    if (!view) { return; }
    event.preventDefault();
    load(view, link.href, true);
  });
  document.addEventListener("submit", function (event) {
    var form = event.target.closest('form[data-js="tribe-events-view-form"]');
    if (!form) { return; }
    var view = container(form);
    if (!view) { return; }
    event.preventDefault();
    var params = new URLSearchParams();
    new FormData(form).forEach(function (value, key) { if (value) { params.append(key, value); } });
    var query = params.toString();
    load(view, form.action + (query ? "?" + query : ""), true);
  });
  window.addEventListener("popstate", function () {
    // Only a different view: following an in-page link (#content) changes the hash alone.
    if (withoutHash(window.location.href) === shown) { return; }
    var view = document.querySelector('[data-js="tribe-events-view"]');
    if (view) { load(view, window.location.href, false); }
  });
}());
