// qagen review form: renders the embedded items, keeps the reviewer's choices in localStorage,
// and saves them as a CSV in the same format as `qagen review export --to review.csv`.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("review-data").textContent);
  var LABELS = data.labels.map(function (l) { return l.code; });
  var CHECKS = data.checks.map(function (c) { return c.code; });
  var ESCAPED = {};
  data.escaped.forEach(function (c) { ESCAPED[c] = true; });
  var IDS = {};
  data.ids.forEach(function (c) { IDS[c] = true; });
  var TYPES = { long_form: "Long-form", factoid: "Factoid", mcq: "Multiple choice" };
  var REVIEWER = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
  var storageKey = "qagen-review:" + data.key;
  var state = load() || { reviewer: data.reviewer, verdicts: {} };
  var dirty = false;

  function load() {
    try {
      var saved = JSON.parse(window.localStorage.getItem(storageKey) || "null");
      return saved && saved.verdicts ? saved : null;
    } catch (e) { return null; }
  }
  function store() {
    dirty = true;
    try { window.localStorage.setItem(storageKey, JSON.stringify(state)); } catch (e) { /* private mode: keep in memory */ }
    progress();
  }
  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function field(name, value) {
    var p = el("div", "field");
    p.appendChild(el("b", "", name));
    p.appendChild(el("span", "text", value));
    return p;
  }
  function verdict(id) {
    if (!state.verdicts[id]) state.verdicts[id] = { label: "", comment: "" };
    return state.verdicts[id];
  }

  function renderHelp() {
    var dl = document.getElementById("label-help");
    data.labels.forEach(function (l) {
      dl.appendChild(el("dt", "", l.name));
      dl.appendChild(el("dd", "", l.help));
    });
    var checks = document.getElementById("check-help");
    data.checks.forEach(function (c) {
      checks.appendChild(el("dt", "", c.name + " (" + c.code + ")"));
      checks.appendChild(el("dd", "", c.help));
    });
  }

  function renderItem(row, index) {
    var card = el("article", "item");
    card.id = "item-" + index;
    card.dataset.id = row.item_id;
    var meta = el("div", "meta");
    meta.appendChild(el("span", "type", "#" + (index + 1) + " " + (TYPES[row.type] || row.type)));
    meta.appendChild(el("span", "", [row.document, row.pages ? "p. " + row.pages : "", row.section].filter(Boolean).join(" \u00b7 ")));
    card.appendChild(meta);
    card.appendChild(field("Question", row.question));
    if (row.options) card.appendChild(field("Options", row.options));
    card.appendChild(field("Answer", row.answer));
    var details = el("details");
    details.appendChild(el("summary", "", "Source passage"));
    details.appendChild(el("div", "passage", row.passage));
    card.appendChild(details);
    card.appendChild(labelChoices(row, index, card));
    card.appendChild(checkChoices(row, index));
    var comment = el("textarea");
    comment.placeholder = "Comment (optional)";
    comment.setAttribute("aria-label", "Comment on item " + (index + 1));
    comment.value = verdict(row.item_id).comment || "";
    comment.addEventListener("input", function () { verdict(row.item_id).comment = comment.value; store(); });
    card.appendChild(comment);
    mark(card, row.item_id);
    return card;
  }

  function labelChoices(row, index, card) {
    var set = el("fieldset");
    data.labels.forEach(function (l) {
      var label = el("label");
      label.title = l.help;
      var input = el("input");
      input.type = "radio";
      input.name = "label-" + index;
      input.value = l.code;
      input.checked = verdict(row.item_id).label === l.code;
      input.addEventListener("change", function () { verdict(row.item_id).label = l.code; store(); mark(card, row.item_id); });
      label.appendChild(input);
      label.appendChild(document.createTextNode(" " + l.name));
      set.appendChild(label);
    });
    var clear = el("button", "plain", "clear");
    clear.type = "button";
    clear.addEventListener("click", function () {
      verdict(row.item_id).label = "";
      set.querySelectorAll("input").forEach(function (i) { i.checked = false; });
      store();
      mark(card, row.item_id);
    });
    set.appendChild(clear);
    return set;
  }

  // One yes / no / not judged group per check; "not judged" writes an empty cell.
  function checkChoices(row, index) {
    var set = el("fieldset", "checks");
    data.checks.forEach(function (c) {
      var group = el("span", "check");
      group.title = c.help;
      group.appendChild(el("span", "check-name", c.name + "?"));
      [["yes", "yes"], ["no", "no"], ["", "not judged"]].forEach(function (choice) {
        var label = el("label");
        var input = el("input");
        input.type = "radio";
        input.name = c.code + "-" + index;
        input.value = choice[0];
        input.checked = (verdict(row.item_id)[c.code] || "") === choice[0];
        input.addEventListener("change", function () { verdict(row.item_id)[c.code] = choice[0]; store(); });
        label.appendChild(input);
        label.appendChild(document.createTextNode(" " + choice[1]));
        group.appendChild(label);
      });
      set.appendChild(group);
    });
    return set;
  }

  function mark(card, id) {
    var done = !!verdict(id).label;
    card.classList.toggle("done", done);
    card.classList.toggle("hidden", done && document.getElementById("only-open").checked);
  }

  function progress() {
    var n = data.rows.filter(function (r) { return verdict(r.item_id).label; }).length;
    document.getElementById("progress").textContent = n + " of " + data.rows.length + " labelled";
  }

  function csvCell(value) {
    var v = value === null || value === undefined ? "" : String(value);
    return /[",\r\n]/.test(v) ? '"' + v.replace(/"/g, '""') + '"' : v;
  }
  function guard(v) { return /^[=+\-@\t\r']/.test(v) ? "'" + v : v; }  // qagen.io.safe_cell's rule
  // Same rule as Python's float(): an id a spreadsheet would read as a number is kept as text.
  function guardId(v) { return /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(v) ? "'" + v : v; }

  function buildCsv() {
    var lines = [data.columns.map(csvCell).join(",")];
    data.rows.forEach(function (row) {
      var v = verdict(row.item_id);
      lines.push(data.columns.map(function (c) {
        var value;
        if (c === "reviewer") value = state.reviewer;
        else if (LABELS.indexOf(c) >= 0) value = v.label === c ? "x" : "";
        else if (CHECKS.indexOf(c) >= 0) value = v[c] || "";
        else if (c === "comment") value = v.comment || "";
        else value = row[c] === null || row[c] === undefined ? "" : String(row[c]);
        return csvCell(ESCAPED[c] ? guard(value) : IDS[c] ? guardId(value) : value);
      }).join(","));
    });
    return "\ufeff" + lines.join("\r\n") + "\r\n";
  }

  function readReviewer() {
    var input = document.getElementById("reviewer");
    state.reviewer = input.value.trim();
    input.classList.toggle("invalid", !REVIEWER.test(state.reviewer));
  }

  function status(text, ok) {
    var s = document.getElementById("status");
    s.textContent = text;
    s.className = ok ? "ok" : "bad";
  }

  function save() {
    readReviewer();
    if (!REVIEWER.test(state.reviewer)) {
      status("Fill in your reviewer name (letters, digits, . _ -) before saving.", false);
      document.getElementById("reviewer").focus();
      return;
    }
    var blob = new Blob([buildCsv()], { type: "text/csv;charset=utf-8" });
    var a = el("a");
    a.href = URL.createObjectURL(blob);
    a.download = data.filename;
    document.body.appendChild(a);
    a.click();
    setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
    dirty = false;
    status("Saved " + data.filename + " (check your downloads folder).", true);
  }

  function init() {
    renderHelp();
    var reviewer = document.getElementById("reviewer");
    reviewer.value = state.reviewer || "";
    reviewer.addEventListener("input", function () { readReviewer(); store(); });
    reviewer.addEventListener("change", function () { readReviewer(); store(); });
    var list = document.getElementById("items");
    data.rows.forEach(function (row, i) { list.appendChild(renderItem(row, i)); });
    document.getElementById("only-open").addEventListener("change", function () {
      document.querySelectorAll(".item").forEach(function (card) { mark(card, card.dataset.id); });
    });
    document.getElementById("save").addEventListener("click", save);
    window.addEventListener("beforeunload", function (e) { if (dirty) { e.preventDefault(); e.returnValue = ""; } });
    progress();
  }

  window.qagenReviewCsv = buildCsv;
  init();
})();
