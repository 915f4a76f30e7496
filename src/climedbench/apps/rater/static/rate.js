// Keyboard shortcuts and small comforts for the rating page; the form works without this script.
// Keys: 1–9 choose that point of the highlighted aspect and move on; ↑/↓ (or k/j) move between aspects;
// Enter saves; c focuses the comment; f toggles the problem flag; Esc leaves the comment box.
(function () {
  "use strict";
  var form = document.getElementById("rating-form");
  if (!form) { return; }
  var rows = Array.prototype.slice.call(form.querySelectorAll("[data-row]"));
  var flag = document.getElementById("flag");
  var comment = document.getElementById("comment");
  var save = document.getElementById("save");
  var current = 0;

  function radios(row) { return row.querySelectorAll("input[type=radio]"); }
  function answered(row) { return row.querySelector("input[type=radio]:checked") !== null; }
  function highlight(i, scroll) {
    if (!rows.length) { return; }
    current = Math.max(0, Math.min(rows.length - 1, i));
    rows.forEach(function (r, k) { r.classList.toggle("current", k === current); });
    if (scroll) { rows[current].scrollIntoView({block: "nearest"}); }
  }
  function firstOpen() {
    for (var k = 0; k < rows.length; k++) { if (!answered(rows[k])) { return k; } }
    return 0;
  }
  function syncRequired() {
    // A flagged case may be saved with aspects left unrated.
    var need = !(flag && flag.checked);
    rows.forEach(function (r) { Array.prototype.forEach.call(radios(r), function (x) { x.required = need; }); });
  }
  function typing(el) { return el && (el.tagName === "TEXTAREA" || (el.tagName === "INPUT" && el.type === "text")); }

  rows.forEach(function (r, k) {
    r.addEventListener("click", function () { highlight(k, false); });
    r.addEventListener("change", function () {
      if (k === current && k + 1 < rows.length) { highlight(k + 1, true); }
    });
  });
  if (flag) { flag.addEventListener("change", syncRequired); }
  form.addEventListener("submit", function (e) {
    // One click, one submission (the server also ignores a repeated form).
    if (form.dataset.sent === "1") { e.preventDefault(); return; }
    form.dataset.sent = "1";
    if (save) { save.disabled = true; }
  });
  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey) { return; }
    if (typing(document.activeElement)) {
      if (e.key === "Escape") { document.activeElement.blur(); }
      return;
    }
    var n = parseInt(e.key, 10);
    if (!isNaN(n) && n >= 1 && n <= 9 && rows.length) {
      var choices = radios(rows[current]);
      if (n <= choices.length) {
        choices[n - 1].checked = true;
        e.preventDefault();
        if (current + 1 < rows.length) { highlight(current + 1, true); }
      }
    } else if (e.key === "ArrowDown" || e.key === "j") {
      highlight(current + 1, true); e.preventDefault();
    } else if (e.key === "ArrowUp" || e.key === "k") {
      highlight(current - 1, true); e.preventDefault();
    } else if (e.key === "Enter") {
      var tag = document.activeElement ? document.activeElement.tagName : "";
      if (tag === "A" || tag === "BUTTON") { return; }  // Enter on a link or button does what it says
      e.preventDefault();
      if (form.reportValidity()) { form.requestSubmit(); }
    } else if (e.key === "c" && comment) {
      e.preventDefault(); comment.focus();
    } else if (e.key === "f" && flag) {
      flag.checked = !flag.checked; syncRequired();
    }
  });
  syncRequired();
  highlight(firstOpen(), false);
})();
