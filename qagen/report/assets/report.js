(function () {
  "use strict";
  // Text from documents is only ever read and written with textContent, never parsed as HTML.

  function initMap() {
    var svg = document.getElementById("topic-map");
    var tip = document.getElementById("tooltip");
    if (!svg || !tip) return;
    var box = svg.parentNode;
    svg.addEventListener("mouseover", function (ev) {
      var c = ev.target;
      if (c.tagName !== "circle") return;
      var title = c.querySelector("title");
      if (title) { c.setAttribute("data-h", title.textContent); c.removeChild(title); }
      tip.textContent = c.getAttribute("data-h") || "";
      tip.hidden = false;
    });
    svg.addEventListener("mousemove", function (ev) {
      if (tip.hidden) return;
      var r = box.getBoundingClientRect();
      var x = ev.clientX - r.left + 14, y = ev.clientY - r.top + 14;
      if (x + tip.offsetWidth > r.width) x = ev.clientX - r.left - tip.offsetWidth - 10;
      tip.style.left = x + "px";
      tip.style.top = y + "px";
    });
    svg.addEventListener("mouseout", function (ev) {
      if (ev.target.tagName === "circle") tip.hidden = true;
    });
    var select = document.getElementById("topic-select");
    if (select) select.addEventListener("change", function () { highlight(select.value); });
    var rows = document.querySelectorAll("#topic-table tbody tr");
    Array.prototype.forEach.call(rows, function (row) {
      row.addEventListener("click", function () {
        var t = row.getAttribute("data-t");
        if (select && t !== "-1") { select.value = t; highlight(t); svg.scrollIntoView({ block: "center" }); }
      });
    });
  }

  function highlight(topic) {
    var svg = document.getElementById("topic-map");
    var marked = svg.querySelectorAll(".on");
    Array.prototype.forEach.call(marked, function (el) { el.classList.remove("on"); });
    svg.classList.toggle("dim", topic !== "");
    if (topic === "") return;
    var hits = svg.querySelectorAll('[data-t="' + topic.replace(/[^0-9-]/g, "") + '"]');
    Array.prototype.forEach.call(hits, function (el) { el.classList.add("on"); });
  }

  function initItems() {
    var list = document.getElementById("item-list");
    var controls = document.getElementById("item-controls");
    if (!list || !controls) return;
    var cards = Array.prototype.slice.call(list.querySelectorAll("details.card"));
    var text = cards.map(function (c) { return c.textContent.toLowerCase(); });
    var selects = Array.prototype.slice.call(controls.querySelectorAll("select[data-f]"));
    var search = document.getElementById("item-search");
    var count = document.getElementById("item-count");
    var none = document.getElementById("no-match");
    function apply() {
      var want = {};
      selects.forEach(function (s) { if (s.value) want[s.getAttribute("data-f")] = s.value; });
      var q = (search.value || "").trim().toLowerCase();
      var shown = 0;
      cards.forEach(function (card, i) {
        var ok = Object.keys(want).every(function (k) { return card.getAttribute("data-" + k) === want[k]; });
        ok = ok && (!q || text[i].indexOf(q) >= 0);
        card.hidden = !ok;
        if (ok) shown += 1;
      });
      count.textContent = shown + " of " + cards.length + " shown";
      none.hidden = shown > 0;
    }
    selects.forEach(function (s) { s.addEventListener("change", apply); });
    search.addEventListener("input", apply);
    var expand = document.getElementById("expand-all");
    expand.addEventListener("click", function () {
      var open = expand.textContent === "Expand all";
      cards.forEach(function (c) { if (!c.hidden) c.open = open; });
      expand.textContent = open ? "Collapse all" : "Expand all";
    });
    apply();
  }

  function initSort() {
    var tables = document.querySelectorAll("table.sortable");
    Array.prototype.forEach.call(tables, function (table) {
      var heads = table.querySelectorAll("thead th");
      Array.prototype.forEach.call(heads, function (th, col) {
        var kind = th.getAttribute("data-sort");
        if (!kind) return;
        th.addEventListener("click", function () {
          var body = table.tBodies[0];
          var rows = Array.prototype.slice.call(body.rows);
          var dir = th.getAttribute("data-dir") === "asc" ? -1 : 1;
          th.setAttribute("data-dir", dir === 1 ? "asc" : "desc");
          rows.sort(function (a, b) {
            var x = cellValue(a.cells[col], kind), y = cellValue(b.cells[col], kind);
            return (x < y ? -1 : x > y ? 1 : 0) * dir;
          });
          rows.forEach(function (r) { body.appendChild(r); });
        });
      });
    });
  }

  function cellValue(cell, kind) {
    var raw = cell.getAttribute("data-v") || cell.textContent;
    if (kind === "num") { var v = parseFloat(raw.replace(/,/g, "")); return isNaN(v) ? -Infinity : v; }
    return raw.toLowerCase();
  }

  initMap();
  initItems();
  initSort();
})();
