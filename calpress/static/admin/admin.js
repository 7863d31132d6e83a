// The workspace's small script: it only improves pages that work without it.
(function () {
  "use strict";
  // After a save, focus moves to the notice that says what happened.
  var notice = document.querySelector(".notice[tabindex]");
  if (notice) { notice.focus(); }
  // "Select all" in list tables.
  var all = document.getElementById("cb-select-all");
  if (all) {
    all.addEventListener("change", function () {
      document.querySelectorAll("#the-list input[type=checkbox]").forEach(function (box) { box.checked = all.checked; });
    });
  }
  // Date-time pickers (flatpickr) where the library is installed; the native input otherwise.
  if (window.flatpickr) {
    document.querySelectorAll("input.datetime").forEach(function (input) {
      input.type = "text";  // the picker's own calendar instead of the browser's
      window.flatpickr(input, { enableTime: true, time_24hr: true, dateFormat: "Y-m-d\\TH:i", allowInput: true,
                                disableMobile: true, ariaDateFormat: "F j, Y" });
    });
  }
  // Searchable selects (Tom Select).
  if (window.TomSelect) {
    document.querySelectorAll("select.searchable").forEach(function (select) {
      // Tom Select points the label at its own input; the select it keeps (hidden, for the form)
      // keeps its name for assistive technology.
      var label = select.id && document.querySelector("label[for='" + select.id + "']");
      if (label) { select.setAttribute("aria-label", label.textContent.trim()); }
      var options = { maxOptions: 1000, plugins: select.multiple ? ["remove_button", "drag_drop"] : [] };
      // eslint-disable-next-line no-new
      new window.TomSelect(select, options);
    });
  }
  // A new venue's fields open when "A new venue" is chosen.
  var venue = document.getElementById("event_venue");
  if (venue) {
    venue.addEventListener("change", function () {
      var box = venue.closest("fieldset").querySelector("details.new-linked");
      if (box) { box.open = venue.value === "new"; }
    });
  }
}());

/* == media (admin/media.py) == */
// Confirm before deleting, copy a file's address, and Dropzone uploads on media-new.php (the
// plain form stays when the library is missing).
(function () {
  "use strict";
  var body = document.body;
  if (!body.classList.contains("screen-upload") && !body.classList.contains("screen-media-new")) { return; }

  // "Delete permanently" asks first, as WordPress's showNotice.warn() (the bulk button only
  // when the chosen action deletes).
  document.addEventListener("click", function (event) {
    var target = event.target.closest ? event.target.closest("[data-confirm]") : null;
    if (!target) { return; }
    if (target.id === "doaction") {
      var chosen = document.getElementById("bulk-action-selector-top");
      if (!chosen || chosen.value !== "delete") { return; }
    }
    if (!window.confirm(target.getAttribute("data-confirm"))) { event.preventDefault(); }
  });

  // "Copy URL to clipboard" beside the read-only file address.
  document.querySelectorAll("button[data-clipboard-target]").forEach(function (button) {
    var input = document.getElementById(button.getAttribute("data-clipboard-target"));
    var status = button.parentNode.querySelector(".copy-status");
    if (!input) { return; }
    button.hidden = false;
    button.addEventListener("click", function () {
      var done = function () { if (status) { status.textContent = "Copied!"; } };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(input.value).then(done, function () { input.select(); });
      } else {
        input.select();
        if (document.execCommand("copy")) { done(); }
      }
    });
  });

  // Dropzone: each file straight to the REST media route with the user's REST nonce (cookie
  // authentication, as WordPress's uploader), with its progress and a link to its details.
  // Set up once every deferred script (Dropzone's among them) has run.
  document.addEventListener("DOMContentLoaded", function () {
    var form = document.getElementById("file-form");
    if (!form || !window.Dropzone) { return; }
    var zoneUi = document.getElementById("plupload-upload-ui");
    var plain = document.getElementById("html-upload-ui");
    var list = document.getElementById("media-items");
    var status = document.getElementById("upload-status");
    var postId = document.getElementById("post_id").value;
    var announce = function (text) { status.textContent = text; };
    plain.hidden = true;
    zoneUi.hidden = false;
    document.getElementById("use-browser-uploader").addEventListener("click", function () {
      zoneUi.hidden = true;
      plain.hidden = false;
      document.getElementById("async-upload").focus();
    });
    var template = '<div class="media-item dz-preview dz-file-preview">' +
      '<span class="filename" data-dz-name></span> <span class="dz-size muted" data-dz-size></span>' +
      '<progress max="100" value="0" data-dz-uploadprogress></progress>' +
      '<span class="dz-error-message field-error" data-dz-errormessage></span>' +
      '<span class="media-item-links"></span></div>';
    var zone = new window.Dropzone(document.getElementById("drag-drop-area"), {
      url: form.getAttribute("data-rest-url"),
      paramName: "file",
      headers: { "X-WP-Nonce": form.getAttribute("data-rest-nonce") },
      maxFilesize: Number(form.getAttribute("data-max-bytes")) / 1048576,
      previewsContainer: list,
      previewTemplate: template,
      clickable: ["#plupload-browse-button"],
      createImageThumbnails: false,
      timeout: 0,
      params: postId && postId !== "0" ? { post: postId } : {}
    });
    zone.on("addedfile", function (file) {
      var bar = file.previewElement && file.previewElement.querySelector("progress");
      if (bar) { bar.setAttribute("aria-label", "Upload progress of " + file.name); }
    });
    zone.on("success", function (file, response) {
      var links = file.previewElement && file.previewElement.querySelector(".media-item-links");
      if (!links || !response || !response.id) { return; }
      var title = (response.title && response.title.raw) || file.name;
      var link = document.createElement("a");
      link.href = form.getAttribute("data-item-url") + "?item=" + encodeURIComponent(response.id);
      link.className = "edit-attachment";
      link.textContent = "Edit “" + title + "”";
      links.appendChild(link);
      announce("“" + file.name + "” uploaded.");
    });
    zone.on("error", function (file, message) {
      var text = typeof message === "string" ? message : (message && message.message) || "The upload failed.";
      var node = file.previewElement && file.previewElement.querySelector("[data-dz-errormessage]");
      text = "“" + file.name + "” has failed to upload. " + text;
      if (node) { node.textContent = text; }
      announce(text);
    });
    zone.on("queuecomplete", function () {
      if (document.getElementById("media-library-link")) { return; }
      var p = document.createElement("p");
      var link = document.createElement("a");
      link.id = "media-library-link";
      link.href = form.getAttribute("data-library-url");
      link.textContent = "Go to the Media Library";
      p.appendChild(link);
      list.parentNode.insertBefore(p, list.nextSibling);
    });
  });
}());
/* == end media == */

/* == tools (admin/tools.py) == */
// import.php?job=N follows its import (without JavaScript the page refreshes itself), and
// deleting a scheduled feed asks first.
(function () {
  "use strict";
  if (!document.body.classList.contains("screen-import")) { return; }
  document.addEventListener("click", function (event) {
    var target = event.target.closest ? event.target.closest(".delete-schedule[data-confirm]") : null;
    if (target && !window.confirm(target.getAttribute("data-confirm"))) { event.preventDefault(); }
  });
  var box = document.getElementById("import-job");
  if (!box || box.getAttribute("data-finished") === "1" || !window.fetch) { return; }
  var url = box.getAttribute("data-status-url");
  var bar = document.getElementById("import-progress-bar");
  var message = document.getElementById("import-progress-message");
  var poll = function () {
    window.fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (answer) {
        // Logged out meanwhile (sent to the login page): the page itself says so.
        if (answer.redirected || answer.status === 403) { return { finished: true }; }
        if (!answer.ok) { throw new Error("HTTP " + answer.status); }
        return answer.json();
      })
      .then(function (status) {
        if (status.finished) { window.location.replace(window.location.href); return; }
        if (typeof status.percent === "number") { bar.value = status.percent; } else { bar.removeAttribute("value"); }
        if (message.textContent !== status.message) { message.textContent = status.message; }
        window.setTimeout(poll, 1000);
      })
      .catch(function () { window.setTimeout(poll, 5000); });
  };
  window.setTimeout(poll, 700);
}());
/* == end tools == */
