"""The page's one stylesheet and one script, kept as text (no CDN, no font, no network).

The script is the only code the page runs: its SHA-256 goes into the Content-Security-Policy,
so no other script (one a hostile report might smuggle in) can run. It inflates heavy bodies
on demand (``DecompressionStream('deflate-raw')``), searches the index, filters tables, follows
anchors into folded frames and kernels, and offers the Perfetto trace as a download.
"""

from __future__ import annotations

import base64
import hashlib

STYLE = """
:root { --fg: #1f2328; --muted: #59636e; --bg: #ffffff; --panel: #f6f8fa; --line: #d1d9e0;
  --link: #0969da; --warn: #9a6700; --bad: #cf222e; --ok: #1a7f37; --mark: #fff8c5; color-scheme: light; }
@media (prefers-color-scheme: dark) {
  :root:not([data-theme="light"]) { --fg: #e6edf3; --muted: #9198a1; --bg: #0d1117; --panel: #151b23;
    --line: #3d444d; --link: #4493f8; --warn: #d29922; --bad: #f85149; --ok: #3fb950; --mark: #3b2e00; color-scheme: dark; }
}
:root[data-theme="dark"] { --fg: #e6edf3; --muted: #9198a1; --bg: #0d1117; --panel: #151b23;
  --line: #3d444d; --link: #4493f8; --warn: #d29922; --bad: #f85149; --ok: #3fb950; --mark: #3b2e00; color-scheme: dark; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
a { color: var(--link); text-decoration: none; } a:hover { text-decoration: underline; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 13px; }
pre { margin: 0; padding: .6rem .8rem; overflow-x: auto; background: var(--panel); border-radius: 6px; white-space: pre; }
.layout { display: grid; grid-template-columns: 17rem minmax(0, 1fr); min-height: 100vh; }
.layout.single { display: block; max-width: 80rem; margin: 0 auto; }
#sidebar { position: sticky; top: 0; height: 100vh; overflow-y: auto; padding: .8rem; border-right: 1px solid var(--line); background: var(--panel); }
#sidebar h2 { font-size: 12px; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); margin: 1rem 0 .3rem; }
#sidebar ul { list-style: none; margin: 0; padding: 0; }
#sidebar li { margin: .1rem 0; font-size: 13px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
#search { width: 100%; padding: .4rem .5rem; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); color: var(--fg); }
#results { margin-top: .4rem; } #results li { white-space: normal; }
#results .kind { color: var(--muted); font-size: 11px; margin-right: .3rem; }
main { padding: 1rem 1.5rem 4rem; min-width: 0; overflow-wrap: anywhere; }
pre, .hl { overflow-wrap: normal; }
h1 { font-size: 1.5rem; margin: .2rem 0 .4rem; } h2 { font-size: 1.2rem; margin: 1.6rem 0 .5rem; }
h3 { font-size: 1.05rem; margin: 1rem 0 .4rem; } h4 { font-size: .95rem; margin: .8rem 0 .3rem; }
.headline { font-weight: 600; } .facts { margin: .3rem 0; padding-left: 1.1rem; color: var(--muted); }
.toolbar { float: right; display: flex; gap: .4rem; }
button { font: inherit; font-size: 13px; padding: .25rem .6rem; border: 1px solid var(--line); border-radius: 6px; background: var(--panel); color: var(--fg); cursor: pointer; }
section.findings { border-top: 1px solid var(--line); }
.sev-error > h2, .sev-error > h3, .sev-error > h4 { color: var(--bad); }
.sev-warning > h2, .sev-warning > h3, .sev-warning > h4 { color: var(--warn); }
ul.items { list-style: none; padding-left: 0; margin: .3rem 0; }
li.item { margin: .5rem 0; padding: .3rem .6rem; border-left: 3px solid var(--line); }
li.item.sev-error { border-left-color: var(--bad); } li.item.sev-warning { border-left-color: var(--warn); }
li.item:target, details.article:target > summary { background: var(--mark); }
.note { color: var(--muted); margin: .15rem 0; overflow-wrap: anywhere; }
.head { overflow-wrap: anywhere; }
.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; margin: .5rem 0; font-size: 13px; }
th, td { border: 1px solid var(--line); padding: .2rem .5rem; text-align: left; vertical-align: top; }
th { background: var(--panel); white-space: nowrap; } td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
table.fields th { width: 12rem; font-weight: 600; } table.fields td { overflow-wrap: anywhere; }
tr[data-target] { cursor: pointer; } tr[data-target]:hover td { background: var(--panel); }
details { margin: .3rem 0; } summary { cursor: pointer; color: var(--muted); }
details.article { border: 1px solid var(--line); border-radius: 8px; margin: .5rem 0; padding: 0 .8rem; }
details.article > summary { padding: .5rem 0; color: var(--fg); font-weight: 600; }
details.article > summary .st { font-weight: 400; color: var(--muted); margin-left: .5rem; }
.st-failed { color: var(--bad) !important; } .st-graph_break, .st-limit_hit { color: var(--warn) !important; }
.permalink { margin-left: .4rem; color: var(--muted); font-weight: 400; }
.fusion { overflow: auto; max-height: 80vh; border: 1px solid var(--line); border-radius: 6px; background: #fff; }
.fusion svg { max-width: none; }
.filter { margin: .3rem 0; padding: .3rem .5rem; width: min(30rem, 100%); border: 1px solid var(--line); border-radius: 6px; background: var(--bg); color: var(--fg); }
.dim { color: var(--muted); }
#help { position: fixed; right: 1rem; bottom: 1rem; max-width: 22rem; padding: .8rem 1rem; background: var(--panel); border: 1px solid var(--line); border-radius: 8px; }
kbd { font-family: ui-monospace, monospace; border: 1px solid var(--line); border-radius: 4px; padding: 0 .3rem; }
footer.page-footer { margin-top: 2rem; color: var(--muted); border-top: 1px solid var(--line); padding-top: .5rem; }
@media (max-width: 820px) {
  .layout { display: block; }
  #sidebar { position: static; height: auto; max-height: 45vh; border-right: none; border-bottom: 1px solid var(--line); }
  main { padding: .8rem; }
  .toolbar { float: none; margin-bottom: .5rem; }
  table.fields th { width: auto; }
}
""".strip()

# In a CDATA section behind line comments: the page stays well-formed XML (``<`` and ``&``).
SCRIPT = r"""//<![CDATA[
(function () {
  "use strict";
  var all = function (sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); };
  function inflate(b64) {
    var raw = atob(b64), bytes = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
    return new Response(stream).text();
  }
  function load(box) {
    if (!box || !box.hasAttribute("data-z")) return Promise.resolve();
    if (box._loading) return box._loading;
    box._loading = inflate(box.getAttribute("data-z")).then(function (html) {
      box.innerHTML = html;
      box.removeAttribute("data-z");
      wire(box);
    });
    return box._loading;
  }
  function open(article, id) {
    if (!article) return Promise.resolve();
    if (article.hasAttribute("data-page")) {  // a split folder: each article is its own page
      location.href = encodeURIComponent(article.id) + ".html" + (id ? "#" + encodeURIComponent(id) : "");
      return new Promise(function () {});
    }
    article.open = true;
    return load(article.querySelector(":scope > .body"));
  }
  function owner(id) {
    var best = null;
    all("details.article[id]").forEach(function (a) {
      if ((id === a.id || id.indexOf(a.id + "-") === 0) && (!best || a.id.length > best.id.length)) best = a;
    });
    return best;
  }
  function more() {  // list every article the page keeps deflated (a huge report's)
    return Promise.all(all(".more-articles[data-z]").map(function (box) {
      return inflate(box.getAttribute("data-z")).then(function (html) {
        box.removeAttribute("data-z");
        box.insertAdjacentHTML("beforebegin", html);
        var listed = box.previousElementSibling;
        box.remove();
        return listed;
      });
    })).then(function () {
      all(".show-more").forEach(function (b) { b.parentElement.remove(); });
      all("details.article").forEach(watch);
    });
  }
  function watch(a) {
    if (a._watched) return;
    a._watched = true;
    a.addEventListener("toggle", function () {
      if (a.open && a.hasAttribute("data-page")) open(a, a.id);
      else if (a.open) load(a.querySelector(":scope > .body"));
    });
  }
  function follow() {
    var id = decodeURIComponent(location.hash.slice(1));
    if (!id) return;
    var el = document.getElementById(id);
    if (!el && !owner(id) && document.querySelector(".more-articles[data-z]")) { more().then(follow); return; }
    var article = el && el.classList && el.classList.contains("article") ? el : owner(id);
    var index = document.body.getAttribute("data-index");
    if (!article && index) { location.href = index + "#" + encodeURIComponent(id); return; }
    open(article, id).then(function () {
      var target = document.getElementById(id) || article;
      if (!target) return;
      var fold = target.closest("details");
      while (fold) { fold.open = true; fold = fold.parentElement.closest("details"); }
      target.scrollIntoView({ block: "start" });
    });
  }
  function filterRows(input) {
    var table = input.parentElement.querySelector("table");
    var words = input.value.toLowerCase();
    all("tbody tr", table).forEach(function (tr) {
      tr.hidden = words !== "" && tr.textContent.toLowerCase().indexOf(words) < 0;
    });
  }
  function wire(root) {
    all("input.filter", root).forEach(function (input) {
      input.addEventListener("input", function () { filterRows(input); });
    });
    all("tr[data-target]", root).forEach(function (tr) {
      tr.addEventListener("click", function (ev) {
        if (ev.target.closest("a")) return;
        location.hash = "#" + tr.getAttribute("data-target");
      });
    });
  }
  var index = null;
  function search(words) {
    var list = document.getElementById("results");
    list.textContent = "";
    words = words.trim().toLowerCase();
    if (!words) return;
    if (!index) index = JSON.parse(document.getElementById("search-index").getAttribute("data-json"));
    var shown = 0;
    for (var i = 0; i < index.length && shown < 60; i++) {
      var e = index[i];
      if ((e.t + " " + e.d).toLowerCase().indexOf(words) < 0) continue;
      var li = document.createElement("li"), kind = document.createElement("span"), a = document.createElement("a");
      kind.className = "kind"; kind.textContent = e.k;
      a.href = "#" + e.a; a.textContent = e.t; a.title = e.d;
      li.appendChild(kind); li.appendChild(a); list.appendChild(li); shown++;
    }
    if (!shown) { var none = document.createElement("li"); none.textContent = "no match"; list.appendChild(none); }
  }
  function theme() {
    var root = document.documentElement;
    var dark = root.getAttribute("data-theme") === "dark" ||
      (!root.hasAttribute("data-theme") && window.matchMedia("(prefers-color-scheme: dark)").matches);
    root.setAttribute("data-theme", dark ? "light" : "dark");
  }
  function perfetto(button) {
    var box = document.getElementById("perfetto-trace");
    inflate(box.getAttribute("data-z")).then(function (text) {
      var a = document.createElement("a");
      a.href = URL.createObjectURL(new Blob([text], { type: "application/json" }));
      a.download = box.getAttribute("data-name") || "trace.json";
      document.body.appendChild(a); a.click(); a.remove();
      button.textContent = "Trace saved: open it in ui.perfetto.dev";
    });
  }
  function articles() { return all("details.article[id]"); }
  function step(n) {
    var list = articles(), y = window.scrollY + 10, at = 0;
    for (var i = 0; i < list.length; i++) if (list[i].getBoundingClientRect().top + window.scrollY <= y) at = i;
    var next = list[Math.max(0, Math.min(list.length - 1, at + n))];
    if (next) location.hash = "#" + next.id;
  }
  document.addEventListener("DOMContentLoaded", function () {
    all("details.article").forEach(watch);
    all(".show-more").forEach(function (b) { b.addEventListener("click", more); });
    wire(document);
    var box = document.getElementById("search");
    if (box) box.addEventListener("input", function () { search(box.value); });
    var t = document.getElementById("theme"); if (t) t.addEventListener("click", theme);
    var p = document.getElementById("perfetto"); if (p) p.addEventListener("click", function () { perfetto(p); });
    var h = document.getElementById("help-button"), help = document.getElementById("help");
    if (h) h.addEventListener("click", function () { help.hidden = !help.hidden; });
    window.addEventListener("hashchange", follow);
    document.addEventListener("keydown", function (ev) {
      if (ev.target.closest("input, textarea") || ev.ctrlKey || ev.metaKey || ev.altKey) {
        if (ev.key === "Escape") ev.target.blur();
        return;
      }
      if (ev.key === "/" && box) { ev.preventDefault(); box.focus(); box.select(); }
      else if (ev.key === "j") step(1);
      else if (ev.key === "k") step(-1);
      else if (ev.key === "o") location.hash = "#overview";
      else if (ev.key === "t") theme();
      else if (ev.key === "?") help.hidden = !help.hidden;
      else if (ev.key === "[" || ev.key === "]") all("main details").forEach(function (d) { d.open = ev.key === "]"; });
    });
    follow();
    document.body.setAttribute("data-ready", "1");
  });
})();
//]]>""".strip()


def script_hash(script: str = SCRIPT) -> str:
    """The CSP source that allows exactly *script*: ``'sha256-...'``."""
    return (
        "'sha256-" + base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii") + "'"
    )


def policy(script: str = SCRIPT) -> str:
    """No network, no plugin, no form, no other script: only this page's own."""
    return (
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
        f"script-src {script_hash(script)}; base-uri 'none'; form-action 'none'"
    )
