// The span widget: spanWidget(root, {drag, onChange}) marks an antecedent and a consequent over the
// words of .sp-sentence and keeps the hidden fields .sp-ant / .sp-con as "first:last" word numbers.
function spanWidget(root, options) {
  options = options || {};
  const sentence = root.querySelector(".sp-sentence");
  const toks = [...sentence.querySelectorAll(".tok")];
  const nocon = root.querySelector(".sp-nocon");
  const warn = root.querySelector(".sp-warn");
  const parse = value => value ? value.split(":").map(Number) : null;
  // Spans to start from: the review's stored ones, or a restored draft's hidden fields.
  const state = {ant: parse(root.dataset.ant || root.querySelector(".sp-ant").value),
                 con: parse(root.dataset.con || root.querySelector(".sp-con").value), mode: "ant", drag: null};
  if (state.ant && !state.con && !nocon.checked) state.mode = "con";
  // The keyboard's place in the words: a cursor, and the other end of what Shift+arrows selected.
  const keys = {cursor: 0, anchor: 0};
  const inside = (span, i) => span && span[0] <= i && i <= span[1];
  const overlap = (a, b) => a && b && a[0] <= b[1] && b[0] <= a[1];
  const text = span => span ? toks.slice(span[0], span[1] + 1).map(
    (t, n) => (n ? (t.previousElementSibling && t.previousElementSibling.classList.contains("gap") ? " " : "") : "") + t.textContent).join("") : "";
  function render() {
    const picked = [Math.min(keys.anchor, keys.cursor), Math.max(keys.anchor, keys.cursor)];
    toks.forEach((t, i) => {
      t.classList.toggle("cursor", i === keys.cursor);
      t.classList.toggle("kbsel", inside(picked, i));
      t.classList.toggle("ant", inside(state.ant, i));
      t.classList.toggle("con", inside(state.con, i));
      t.classList.toggle("edge", !!options.drag && [state.ant, state.con].some(s => s && (s[0] === i || s[1] === i)));
      const gap = t.previousElementSibling;
      if (gap && gap.classList.contains("gap")) {
        gap.classList.toggle("ant", inside(state.ant, i - 1) && inside(state.ant, i));
        gap.classList.toggle("con", inside(state.con, i - 1) && inside(state.con, i));
      }
    });
    root.querySelector(".sp-ant").value = state.ant ? state.ant.join(":") : "";
    root.querySelector(".sp-con").value = state.con ? state.con.join(":") : "";
    root.querySelector(".sp-ant-text").textContent = text(state.ant) || "(antecedent not marked)";
    root.querySelector(".sp-con-text").textContent = nocon.checked ? "(no consequent)" : text(state.con) || "(consequent not marked)";
    root.querySelectorAll(".sp-mode").forEach(b => b.setAttribute("aria-pressed", String(b.dataset.mode === state.mode)));
    if (options.onChange) options.onChange();
  }
  function set(kind, span) {
    const other = kind === "ant" ? state.con : state.ant;
    if (overlap(span, other)) { warn.textContent = "The antecedent and the consequent cannot overlap."; return false; }
    warn.textContent = "";
    state[kind] = span;
    if (kind === "con") nocon.checked = false;
    return true;
  }
  // The words the browser selection touches, whole: a selection snaps outwards to word edges.
  function selected() {
    const selection = window.getSelection();
    if (!selection.rangeCount || selection.isCollapsed) return null;
    const range = selection.getRangeAt(0);
    if (!sentence.contains(range.commonAncestorContainer) && !range.commonAncestorContainer.contains(sentence)) return null;
    const hit = toks.filter(t => {
      const node = t.firstChild;
      if (!node || !range.intersectsNode(node)) return false;
      if (range.endContainer === node && range.endOffset === 0) return false;
      return !(range.startContainer === node && range.startOffset === node.length);
    });
    return hit.length ? [Number(hit[0].dataset.i), Number(hit[hit.length - 1].dataset.i)] : null;
  }
  function apply() {
    if (pointerDown) return;  // a timer from an earlier selection must not cut into a drag
    const span = selected();
    if (!span) return;
    window.getSelection().removeAllRanges();
    if (set(state.mode, span) && state.mode === "ant" && !state.con && !nocon.checked) state.mode = "con";
    render();
  }
  let pointerDown = false, pending = null;
  sentence.addEventListener("pointerdown", () => { pointerDown = true; clearTimeout(pending); });
  document.addEventListener("pointerup", () => {
    const mine = pointerDown;
    pointerDown = false;
    if (mine && !state.drag) apply();
  });
  // Touch: the selection is adjusted with handles after the finger lifts; take it once it settles.
  document.addEventListener("selectionchange", () => {
    if (pointerDown || state.drag) return;
    clearTimeout(pending);
    pending = setTimeout(apply, 700);
  });
  if (options.drag) {
    // Drag the first or last word of a span to another word to move that boundary.
    sentence.addEventListener("mousedown", event => {
      const t = event.target.closest(".tok");
      if (!t || !t.classList.contains("edge")) return;
      const i = Number(t.dataset.i);
      const kind = inside(state.ant, i) ? "ant" : "con";
      state.drag = {kind, end: state[kind][0] === i ? 0 : 1};
      event.preventDefault();
    });
    document.addEventListener("mouseup", event => {
      if (!state.drag) return;
      const drag = state.drag;
      state.drag = null;
      const t = document.elementFromPoint(event.clientX, event.clientY);
      const tok = t && t.closest && t.closest(".sp-sentence .tok");
      if (!tok || !sentence.contains(tok)) return;
      const span = state[drag.kind].slice();
      span[drag.end] = Number(tok.dataset.i);
      span.sort((a, b) => a - b);
      set(drag.kind, span);
      render();
    });
  }
  // Keys in the words: arrows move, Shift+arrows extend, a/c mark, x no consequent, Backspace clears.
  const spoken = root.querySelector(".sp-keys") || root.appendChild(Object.assign(document.createElement("span"),
    {className: "sp-keys visually-hidden"}));
  spoken.setAttribute("aria-live", "polite");
  function say() {
    const span = [Math.min(keys.anchor, keys.cursor), Math.max(keys.anchor, keys.cursor)];
    spoken.textContent = (span[0] === span[1] ? "On " : "Selected ") + text(span);
  }
  sentence.addEventListener("keydown", event => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const last = toks.length - 1;
    const move = step => {
      keys.cursor = Math.max(0, Math.min(last, keys.cursor + step));
      if (!event.shiftKey) keys.anchor = keys.cursor;
    };
    const picked = () => [Math.min(keys.anchor, keys.cursor), Math.max(keys.anchor, keys.cursor)];
    const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    if (key === "ArrowRight") move(1);
    else if (key === "ArrowLeft") move(-1);
    else if (key === "Home") move(-toks.length);
    else if (key === "End") move(toks.length);
    else if (key === "a" || key === "c") {
      const kind = key === "a" ? "ant" : "con";
      if (set(kind, picked())) {
        state.mode = kind === "ant" && !state.con && !nocon.checked ? "con" : kind;
        keys.anchor = keys.cursor;
      }
    } else if (key === "x") {
      nocon.checked = !nocon.checked;
      nocon.dispatchEvent(new Event("change", {bubbles: true}));
    } else if (key === "Backspace" || key === "Delete") {
      if (inside(state.ant, keys.cursor)) state.ant = null;
      else if (inside(state.con, keys.cursor)) state.con = null;
      warn.textContent = "";
    } else return;
    event.preventDefault();
    event.stopPropagation();
    render();
    say();
  });
  sentence.addEventListener("focus", () => { sentence.classList.add("keyed"); say(); });
  sentence.addEventListener("blur", () => sentence.classList.remove("keyed"));
  root.querySelectorAll(".sp-mode").forEach(b => b.addEventListener("click", () => { state.mode = b.dataset.mode; render(); }));
  nocon.addEventListener("change", () => { if (nocon.checked) { state.con = null; if (state.mode === "con") state.mode = "ant"; } render(); });
  root.querySelector(".sp-clear").addEventListener("click", () => {
    state.ant = state.con = null; state.mode = "ant"; nocon.checked = false; warn.textContent = ""; render();
  });
  render();
  return {complete: () => !!state.ant && (!!state.con || nocon.checked), focus: () => sentence.focus()};
}

// The organizer's review page: one widget whose span edges can be dragged.
document.querySelectorAll("[data-span-review]").forEach(root => spanWidget(root, {drag: true}));
