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
