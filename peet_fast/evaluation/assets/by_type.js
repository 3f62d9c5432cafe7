/* peet-fast report: the error-analysis section (issue 44) -- the per-type heatmap, the per-type difference of two
   systems, and the sentence browser. Plain DOM, no library; the data is the JSON of <script id="bt-data">. */
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("bt-data").textContent);
  var OUT = ["TP", "FP", "FN", "unscored"];
  var PAGE = 50;
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) { e.setAttribute(k, attrs[k]); }
    if (text !== undefined) { e.textContent = text; }
    return e;
  }
  function $(id) { return document.getElementById(id); }
  function fmt(x) { return x === null || x === undefined ? "\u2013" : x.toFixed(2); }

  /* --- heatmap: rows types, columns systems; the value chosen by the radio buttons --------------------------- */
  function colour(v) {             // white (0) to dark blue (1); the text turns white on dark cells
    var t = Math.max(0, Math.min(1, v));
    var r = Math.round(247 - t * (247 - 8)), g = Math.round(251 - t * (251 - 69)), b = Math.round(255 - t * (255 - 148));
    return "rgb(" + r + "," + g + "," + b + ")";
  }
  function heatmap() {
    var which = document.querySelector('input[name="bt-figure"]:checked').value;
    var body = $("bt-heat-body");
    body.textContent = "";
    D.types.forEach(function (t, ti) {
      var tr = el("tr");
      tr.appendChild(el("th", {"class": "l", scope: "row"}, t));
      D.systems.forEach(function (s, si) {
        var c = D.cells[si][ti];
        var td = el("td");
        if (c === null) {
          td.textContent = "\u2013";
          td.title = s + ", " + t + ": no edit of this type";
        } else {
          var v = c[which];
          var thin = c.support < D.min_support;
          td.textContent = thin ? "(" + fmt(v) + ")" : fmt(v);
          td.style.background = colour(v);
          if (v > 0.55) { td.style.color = "#fff"; }
          if (thin) { td.className = "thin"; }
          td.title = s + ", " + t + ": TP " + c.TP + ", FP " + c.FP + ", FN " + c.FN + "; P " + fmt(c.P) +
            ", R " + fmt(c.R) + ", F " + fmt(c.F) + (c.lo === null ? "" : " [" + fmt(c.lo) + ", " + fmt(c.hi) + "]") +
            "; reference edits " + c.support;
        }
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
  }

  /* --- difference of two systems per type, with its paired-bootstrap interval (SVG) ------------------------- */
  function diffChart() {
    var a = +$("bt-da").value, b = +$("bt-db").value, box = $("bt-diff");
    box.textContent = "";
    var rows = D.types.map(function (t, ti) {
      var key = Math.min(a, b) + "," + Math.max(a, b), d = a === b ? [0, 0, 0] : D.diff[key][ti];
      var neg = function (v) { return v === null ? null : -v; };
      return a > b ? [t, neg(d[0]), neg(d[2]), neg(d[1])] : [t, d[0], d[1], d[2]];
    });
    var W = 640, L = 150, R = 20, H = 18, top = 30, h = top + rows.length * H + 30;
    var ns = "http://www.w3.org/2000/svg";
    var svg = document.createElementNS(ns, "svg");
    svg.setAttribute("viewBox", "0 0 " + W + " " + h);
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", "per-type F difference");
    function x(v) { return L + (v + 1) / 2 * (W - L - R); }
    function add(tag, attrs, text) {
      var e = document.createElementNS(ns, tag);
      for (var k in attrs) { e.setAttribute(k, attrs[k]); }
      if (text !== undefined) { e.textContent = text; }
      svg.appendChild(e);
      return e;
    }
    [-1, -0.5, 0, 0.5, 1].forEach(function (v) {
      add("line", {x1: x(v), x2: x(v), y1: top - 6, y2: h - 24, stroke: v === 0 ? "#333" : "#ddd"});
      add("text", {x: x(v), y: h - 8, "text-anchor": "middle", "font-size": 11}, (v > 0 ? "+" : "") + v);
    });
    add("text", {x: x(0), y: 14, "text-anchor": "middle", "font-size": 12},
        D.f + " of " + D.systems[a] + " minus " + D.systems[b] + " (95% paired-bootstrap interval)");
    rows.forEach(function (r, k) {
      var y = top + k * H + H / 2;
      var ti = D.types.indexOf(r[0]), thin = [a, b].some(function (s) {
        var c = D.cells[s][ti];
        return c === null || c.support < D.min_support;
      });
      add("text", {x: L - 6, y: y + 4, "text-anchor": "end", "font-size": 11, "font-style": thin ? "italic" : "normal"},
          thin ? "(" + r[0] + ")" : r[0]);
      if (r[2] !== null && r[3] !== null) {
        add("line", {x1: x(r[2]), x2: x(r[3]), y1: y, y2: y, stroke: "#555", "stroke-width": 2});
      }
      if (r[1] === null) {          // A or B has no edit of this type: nothing to compare
        add("text", {x: x(0) + 6, y: y + 4, "font-size": 10, fill: "#777"}, "no edit in A or B");
      } else {
        add("circle", {cx: x(r[1]), cy: y, r: 4, fill: r[1] >= 0 ? "#1f5fa8" : "#c2571a"});
      }
    });
    box.appendChild(svg);
  }

  /* --- sentence browser ------------------------------------------------------------------------------------- */
  function shownSystems() {
    var s = $("bt-sys").value, dA = +$("bt-da").value, dB = +$("bt-db").value;
    if ($("bt-differ").checked) { return [dA, dB]; }
    return s === "all" ? D.systems.map(function (_, k) { return k; }) : [+s];
  }
  function editKey(e) { return e[0] + ":" + e[1] + ":" + e[2]; }
  function differ(sent, a, b) {
    var ka = sent.o[a][2].map(editKey).sort().join("|"), kb = sent.o[b][2].map(editKey).sort().join("|");
    return ka !== kb;
  }
  function matches(sent, systems, type, outcome) {
    if (type === "any" && outcome === "any") { return true; }
    return systems.some(function (s) {
      var o = sent.o[s];
      return o[2].concat(o[3]).some(function (e) {
        return (type === "any" || D.group[e[3]] === +type) && (outcome === "any" || e[4] === +outcome);
      });
    });
  }
  var state = {rows: [], shown: 0};
  function filter() {
    var systems = shownSystems(), type = $("bt-type").value, outcome = $("bt-outcome").value;
    var dOn = $("bt-differ").checked, a = +$("bt-da").value, b = +$("bt-db").value;
    var rows = [];
    D.sentences.forEach(function (sent, i) {
      if (dOn && !differ(sent, a, b)) { return; }
      if (matches(sent, systems, type, outcome)) { rows.push(i); }
    });
    if ($("bt-sort").value === "peet") {
      var key = function (i) {
        return Math.max.apply(null, systems.map(function (s) { var v = D.sentences[i].o[s][1]; return v === null ? -1 : v; }));
      };
      rows.sort(function (p, q) { return key(q) - key(p) || p - q; });
    }
    var counts = systems.map(function () { return [0, 0, 0]; });
    rows.forEach(function (i) {
      systems.forEach(function (s, k) {
        var o = D.sentences[i].o[s];
        o[2].forEach(function (e) { if (e[4] === 1) { counts[k][1] += 1; } });
        o[3].forEach(function (e) { if (e[4] === 0) { counts[k][0] += 1; } else if (e[4] === 2) { counts[k][2] += 1; } });
      });
    });
    var tb = $("bt-counts-body");
    tb.textContent = "";
    systems.forEach(function (s, k) {
      var tr = el("tr", {"data-system": D.systems[s]});
      tr.appendChild(el("td", {"class": "l"}, D.systems[s]));
      counts[k].forEach(function (c, j) { tr.appendChild(el("td", {"data-count": OUT[j]}, String(c))); });
      tb.appendChild(tr);
    });
    $("bt-matching").textContent = rows.length + " of " + D.sentences.length + " sentences shown match";
    state.rows = rows;
    state.shown = 0;
    $("bt-list").textContent = "";
    more();
  }
  function editSpan(src, e, ref) {
    var span = el("span", {"class": "e o" + e[4], title: D.fulltypes[e[3]] + " (" + OUT[e[4]] + ")"});
    var orig = src.slice(e[0], e[1]).join(" ");
    if (orig) { span.appendChild(el("del", {}, orig)); }
    if (e[2] && e[2] !== "-NONE-") { span.appendChild(el("ins", {}, e[2])); }
    span.appendChild(el("b", {"class": "m"}, "[" + OUT[e[4]] + " " + D.fulltypes[e[3]] + "]"));
    return span;
  }
  function rendered(src, edits) {   // the source with the edits in place: the output (or the reference) as marked
    var p = el("span"), at = 0;
    edits.filter(function (e) { return e[0] >= 0; }).sort(function (x, y) { return x[0] - y[0] || x[1] - y[1]; })
      .forEach(function (e) {
        if (e[0] > at) { p.appendChild(document.createTextNode(src.slice(at, e[0]).join(" ") + " ")); }
        p.appendChild(editSpan(src, e));
        p.appendChild(document.createTextNode(" "));
        at = Math.max(at, e[1]);
      });
    if (at < src.length) { p.appendChild(document.createTextNode(src.slice(at).join(" "))); }
    return p;
  }
  function card(i, systems) {
    var sent = D.sentences[i], src = sent.s.split(" ");
    var div = el("div", {"class": "sent", "data-sentence": String(i + 1)});
    div.appendChild(el("div", {"class": "src"}, "#" + (i + 1) + " source: " + sent.s));
    sent.r.forEach(function (r, k) { div.appendChild(el("div", {"class": "ref"}, "reference " + k + ": " + r)); });
    systems.forEach(function (s) {
      var o = sent.o[s], row = el("div", {"class": "sys"});
      var head = el("span", {"class": "who"}, D.systems[s] + (o[1] === null ? "" : " \u00b7 " + o[1].toFixed(1) + " s") +
                    (o[0] === null ? "" : " \u00b7 vs ref " + o[0]) + ": ");
      row.appendChild(head);
      row.appendChild(o[2].length ? rendered(src, o[2]) : el("span", {"class": "same"}, "(unchanged)"));
      var missed = o[3].filter(function (e) { return e[4] === 2; });
      if (missed.length) {
        var fn = el("div", {"class": "fn"}, "missed: ");
        missed.forEach(function (e) { fn.appendChild(editSpan(src, e)); fn.appendChild(document.createTextNode(" ")); });
        row.appendChild(fn);
      }
      div.appendChild(row);
    });
    return div;
  }
  function more() {
    var systems = shownSystems(), list = $("bt-list"), end = Math.min(state.rows.length, state.shown + PAGE);
    for (var k = state.shown; k < end; k++) { list.appendChild(card(state.rows[k], systems)); }
    state.shown = end;
    $("bt-more").style.display = end < state.rows.length ? "" : "none";
    $("bt-more").textContent = "show " + Math.min(PAGE, state.rows.length - end) + " more (" + (state.rows.length - end) + " left)";
  }

  function options(select, items) {
    items.forEach(function (it) { select.appendChild(el("option", {value: it[0]}, it[1])); });
  }
  options($("bt-sys"), D.systems.map(function (s, k) { return [k, s]; }));
  options($("bt-type"), D.groups.map(function (g, k) { return [k, g]; }));
  ["bt-da", "bt-db"].forEach(function (id, j) {
    options($(id), D.systems.map(function (s, k) { return [k, s]; }));
    $(id).value = String(Math.min(j, D.systems.length - 1));
  });
  document.querySelectorAll('input[name="bt-figure"]').forEach(function (r) { r.addEventListener("change", heatmap); });
  ["bt-da", "bt-db"].forEach(function (id) {
    $(id).addEventListener("change", function () { diffChart(); filter(); });
  });
  ["bt-sys", "bt-type", "bt-outcome", "bt-sort", "bt-differ"].forEach(function (id) { $(id).addEventListener("change", filter); });
  $("bt-more").addEventListener("click", more);
  if (!D.sentences.some(function (sent) { return sent.o.some(function (o) { return o[1] !== null; }); })) {
    var peet = document.querySelector('#bt-sort option[value="peet"]');   // PEET not ranked: no seconds to sort by
    peet.disabled = true;
    peet.textContent = "PEET seconds (PEET not ranked)";
  }
  heatmap();
  diffChart();
  filter();
  document.body.setAttribute("data-bt-ready", "1");
})();
