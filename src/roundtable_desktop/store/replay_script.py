"""The replay page's own script and layout style, as text (store/replay_page.py inlines
them; the page's CSP allows exactly this script, by its hash).

The script reads the embedded JSON (`<script type="application/json" id="rt-data">`),
rebuilds each step's request from the chunk table (the JSON export's format 3 layout,
store/export_json.py) and renders it as the context view does (context/
request_document.py: one `article.rt-request`, a `div.rt-message` per message, prompt
layers marked, a meeting document embedded as its XHTML), with the response, the state
after the step as panels, and the result. Every text goes in as text (`textContent`);
an embedded document is parsed as XHTML by the browser and stripped of anything active.
Must hold no data and load nothing: no URL anywhere in it.
"""

from __future__ import annotations

SCRIPT = r"""
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("rt-data").textContent);
  const steps = data.steps;
  const chunks = data.chunks;
  const el = (tag, cls, text) => {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  };
  const bytesOf = (entry) => {
    if (typeof entry === "string") return new TextEncoder().encode(entry);
    const raw = atob(entry.base64);
    const out = new Uint8Array(raw.length);
    for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
    return out;
  };
  const joined = (refs) => {
    if (refs.every((i) => typeof chunks[i] === "string")) {
      return refs.map((i) => chunks[i]).join("");
    }
    const parts = refs.map((i) => bytesOf(chunks[i]));
    const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) { all.set(p, at); at += p.length; }
    return new TextDecoder("utf-8").decode(all);
  };
  // Advance `count` code points (the store counts characters as Python does) from `at`.
  const advance = (text, at, count) => {
    while (count > 0 && at < text.length) {
      const c = text.charCodeAt(at);
      at += (c >= 0xd800 && c <= 0xdbff && at + 1 < text.length) ? 2 : 1;
      count--;
    }
    return at;
  };
  const requestOf = (step) => {
    if (step.request) return step.request;
    const text = joined(step.request_chunks);
    if (text[0] !== "[") return JSON.parse(text);
    const cut = text.indexOf("\n");
    const head = JSON.parse(text.slice(0, cut));
    const lengths = head[0], body = head[1];
    const contents = text.slice(cut + 1);
    let at = 0;
    (body.messages || []).forEach((message, i) => {
      if (lengths[i] === null || lengths[i] === undefined) return;
      const end = advance(contents, at, lengths[i]);
      message.content = contents.slice(at, end);
      at = end;
    });
    return body;
  };
  const layersOf = (step) => {
    if (step.layers) return step.layers;
    const text = joined(step.layers_chunks || []);
    return text ? JSON.parse(text) : [];
  };
  const stateOf = (index) => {
    if (index === null || index === undefined) return null;
    const saved = data.states[index];
    return saved.state ? saved.state : JSON.parse(joined(saved.chunks));
  };
  window.rtRequestOf = (i) => requestOf(steps[i]);

  // -- the request, as the context view renders it -----------------------------------
  const NOT_LISTED = new Set(["model", "messages", "stream", "stream_options"]);
  const XHTML = "http://www.w3.org/1999/xhtml";
  const option = (list, name, value, note) => {
    const pair = el("div", "rt-option");
    pair.append(el("dt", "rt-option-name", name));
    const dd = el("dd", "rt-option-value", String(value).slice(0, 300));
    if (note) dd.append(el("span", "rt-unsent", " (" + note + ")"));
    pair.append(dd);
    list.append(pair);
  };
  const preText = (text, cls) => el("pre", cls || "rt-text", text);
  const inert = (node) => {
    node.querySelectorAll("script, iframe, object, embed, link, meta, style, base, form")
      .forEach((n) => n.remove());
    for (const n of [node, ...node.querySelectorAll("*")]) {
      for (const a of [...n.attributes]) {
        const loads = /^(src|href|srcset|action|formaction|xlink:href)$/i.test(a.name);
        if (/^on/i.test(a.name) || loads) n.removeAttribute(a.name);
      }
    }
    return node;
  };
  const embedded = (content) => {
    if (!content.startsWith("<")) return null;
    const doc = new DOMParser().parseFromString(content, "application/xhtml+xml");
    const root = doc.documentElement;
    if (!root || root.namespaceURI !== XHTML) return null;
    if (root.getAttribute("id") !== "context-window") return null;
    if (doc.getElementsByTagName("parsererror").length) return null;
    return inert(document.importNode(root, true));
  };
  const layered = (box, content, layers) => {
    let pos = 0;
    for (const layer of layers) {
      if (!layer.text) continue;
      const at = content.indexOf(layer.text, pos);
      if (at < 0) continue;
      if (at > pos) box.append(preText(content.slice(pos, at), "rt-text rt-glue"));
      const block = el("div", "rt-layer");
      block.dataset.layer = layer.name;
      const head = el("p", "rt-layer-head");
      head.append(el("span", "rt-layer-name", layer.name),
                  el("span", "rt-layer-source", layer.source));
      block.append(head, preText(layer.text));
      box.append(block);
      pos = at + layer.text.length;
    }
    if (pos < content.length) box.append(preText(content.slice(pos), "rt-text rt-glue"));
  };
  const renderRequest = (step) => {
    const request = requestOf(step);
    const layers = layersOf(step);
    const article = el("article", "rt-request");
    article.id = "request";
    const head = el("header", "rt-request-head");
    if (step.label) head.append(el("h1", "rt-request-label", step.label));
    const options = el("dl", "rt-options");
    option(options, "model", request.model || step.model);
    option(options, "purpose", step.purpose, "not sent");
    for (const [name, value] of Object.entries(request)) {
      if (NOT_LISTED.has(name)) continue;
      if (name === "tools" && Array.isArray(value)) {
        const names = value.map((t) => (t && t.function && t.function.name) || "?");
        option(options, "tools", names.length + ": " + names.join(", "));
      } else option(options, name, JSON.stringify(value));
    }
    head.append(options);
    article.append(head);
    let layersShown = false;
    (request.messages || []).forEach((message, index) => {
      const box = el("div", "rt-message");
      box.dataset.role = message.role;
      box.dataset.index = String(index);
      box.append(el("h2", "rt-role", message.role));
      const content = typeof message.content === "string" ? message.content
        : JSON.stringify(message.content, null, 2);
      const doc = message.role === "user" ? embedded(content) : null;
      const holder = el("div", doc ? "rt-content rt-document" : "rt-content");
      if (doc) holder.append(doc);
      else if (message.role === "system" && layers.length && !layersShown) {
        layersShown = true;
        layered(holder, content, layers);
      } else holder.append(preText(content));
      box.append(holder);
      if (message.tool_calls) {
        const calls = el("div", "rt-tool-calls");
        calls.append(el("p", "rt-field-label", "tool calls"),
                     preText(JSON.stringify(message.tool_calls, null, 2), "rt-value"));
        box.append(calls);
      }
      article.append(box);
    });
    return article;
  };

  // -- panels: the state after the step -----------------------------------------------
  const at = (value, path) =>
    path.reduce((v, k) => (v && typeof v === "object") ? v[k] : undefined, value);
  const short = (v) => {
    if (v === null || v === undefined) return "—";
    if (typeof v !== "object") return String(v);
    if (Array.isArray(v)) return v.length + " item" + (v.length === 1 ? "" : "s");
    const name = v.title || v.name || v.text || v.id;
    return name !== undefined ? String(name) : Object.keys(v).length + " fields";
  };
  const valueView = (value) => {
    if (Array.isArray(value)) {
      const list = el("ol", "rt-panel-list");
      const shown = value.slice(-40);
      if (value.length > shown.length) list.start = value.length - shown.length + 1;
      for (const item of shown) list.append(el("li", "", short(item)));
      if (!value.length) list.append(el("li", "rt-empty", "(none)"));
      return list;
    }
    if (value && typeof value === "object") {
      const list = el("dl", "rt-panel-fields");
      for (const [k, v] of Object.entries(value).slice(0, 40)) {
        list.append(el("dt", "", k), el("dd", "", short(v)));
      }
      return list;
    }
    return el("p", "", short(value));
  };
  const panelsOf = (state) => {
    if (!state) return [];
    if (data.panels.length) return data.panels.map((p) => [p.title, at(state, p.path)]);
    // No panels declared by the kind: the state's own fields (one wrapper level opened).
    const keys = Object.keys(state);
    const isObject = (v) => v && typeof v === "object" && !Array.isArray(v);
    const inner = keys.find((k) => isObject(state[k]) && Object.keys(state[k]).length > 8);
    const top = inner ? state[inner] : state;
    const weight = (v) => Array.isArray(v) ? 0 : isObject(v) ? 1 : 2;  // lists first
    return Object.entries(top)
      .filter(([, v]) => v !== null && v !== "" && !(Array.isArray(v) && !v.length))
      .sort((a, b) => weight(a[1]) - weight(b[1]));
  };

  // -- the page -------------------------------------------------------------------------
  const slider = document.getElementById("rt-step");
  const where = document.getElementById("rt-where");
  const view = document.getElementById("rt-request-view");
  const reply = document.getElementById("rt-response");
  const facts = document.getElementById("rt-call-facts");
  const panels = document.getElementById("rt-panels");
  slider.max = String(Math.max(steps.length - 1, 0));
  const show = (i) => {
    if (!steps.length) { where.textContent = "This session made no model call."; return; }
    i = Math.max(0, Math.min(steps.length - 1, i));
    slider.value = String(i);
    const step = steps[i];
    where.textContent = "Step " + (i + 1) + " of " + steps.length + " · " +
      (step.speaker || "System") + (step.label ? " · " + step.label : "") +
      (step.inherited_from ? " · inherited from " + step.inherited_from.slice(0, 8) : "");
    view.replaceChildren(renderRequest(step));
    view.scrollTop = 0;
    reply.textContent = step.response || "(no text)";
    facts.replaceChildren();
    for (const [k, v] of step.facts) facts.append(el("dt", "", k), el("dd", "", v));
    panels.replaceChildren();
    for (const [title, value] of panelsOf(stateOf(step.state))) {
      const box = el("details", "rt-panel");
      box.open = true;
      box.append(el("summary", "", title), valueView(value));
      panels.append(box);
    }
  };
  slider.addEventListener("input", () => show(Number(slider.value)));
  const by = (n) => () => show(Number(slider.value) + n);
  document.getElementById("rt-prev").addEventListener("click", by(-1));
  document.getElementById("rt-next").addEventListener("click", by(1));
  document.addEventListener("keydown", (e) => {
    if (e.key === "ArrowLeft") { show(Number(slider.value) - 1); e.preventDefault(); }
    if (e.key === "ArrowRight") { show(Number(slider.value) + 1); e.preventDefault(); }
  });
  show(0);
})();
"""

STYLE = """
:root { --bg: #ffffff; --panel: #f2f3f5; --text: #0d0d0d; --muted: #3d3d3d;
  --accent: #0b4fc4; --accent-text: #ffffff; --border: #7a7f87; --highlight: #fff0b3;
  --code-bg: #e9ecf1; --error-bg: #fde3e3; --error-text: #7a0d0d; --info-bg: #e3edfd;
  --info-text: #0a2f6b; --warning-bg: #fff1c2; --warning-text: #4d3800; color-scheme: light; }
html, body { height: 100%; }
body.rt-replay { display: grid; grid-template-rows: auto 1fr; padding: 0; font-size: 15px;
  overflow: hidden; }
#rt-bar { display: flex; flex-wrap: wrap; align-items: center; gap: .4rem 1rem;
  padding: .4rem 1rem; background: var(--accent); color: var(--accent-text); }
#rt-bar h1 { font-size: 1.05rem; margin: 0; }
#rt-bar input[type=range] { flex: 1 1 16rem; min-width: 10rem; }
#rt-bar button { font: inherit; padding: .1rem .7rem; }
#rt-where { flex-basis: 100%; font-weight: 600; margin: 0; }
#rt-main { display: grid; grid-template-columns: minmax(0, 3fr) minmax(18rem, 2fr);
  min-height: 0; }
#rt-request-view { overflow: auto; border-right: 1px solid var(--border); font-size: 15px; }
#rt-side { overflow: auto; padding: .5rem 1rem; background: var(--panel); }
#rt-side h2 { font-size: 1rem; margin: .8rem 0 .3rem; }
#rt-response { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--bg);
  border: 1px solid var(--border); border-radius: 4px; padding: .4rem .6rem; margin: 0;
  max-height: 14rem; overflow: auto; font-size: .9em; }
dl.rt-facts, dl.rt-panel-fields { display: grid; grid-template-columns: max-content 1fr;
  gap: 0 .8rem; margin: .2rem 0; font-size: .9em; }
dl.rt-facts dt, dl.rt-panel-fields dt { font-weight: 600; }
dl.rt-facts dd, dl.rt-panel-fields dd { margin: 0; overflow-wrap: anywhere; }
details.rt-panel { background: var(--bg); border: 1px solid var(--border); border-radius: 4px;
  margin: .4rem 0; padding: .2rem .6rem; font-size: .9em; }
details.rt-panel summary { font-weight: 700; cursor: pointer; }
ol.rt-panel-list { margin: .2rem 0; padding-left: 1.8rem; max-height: 14rem; overflow: auto; }
#rt-result ol { padding-left: 1.5rem; }
.rt-tag { color: var(--muted); font-size: .85em; margin-left: .4rem; }
"""
