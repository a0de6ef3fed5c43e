// The span widget of a design's task page (design.js), loaded only on pages that have a span scheme, so that a
// HIT without one stays well under MTurk's 64 KB question. design.js calls it with what it shares.
window.crowdsetSpans = function ({form, items, changed}) {
  // An item's text is shown once, before its questions, and every span scheme of the item marks that text. What is
  // selected is a range of characters: whole words picked by click, tap, drag or keys, or, where a scheme marks
  // characters (as Potato does), the characters selected with the mouse. A scheme of words widens it to its words.
  function spanText(root) {
    const chars = Array.from(root.textContent);  // code points, as the server counts offsets
    // A word carries its first character's offset; its end is counted here, so the page stays small.
    const words = [...root.querySelectorAll(".tok")].map(tok => {
      const start = Number(tok.dataset.start);
      return {start, end: start + Array.from(tok.textContent).length};
    });
    const widgets = [];  // the item's span schemes, in the page's order
    const links = [];  // the item's link schemes (span_link), whose spans are these
    const state = {anchor: null, cursor: null, dragging: false, open: false, range: null};
    const byCharacters = () => widgets.some(widget => widget.characters && !widget.scheme.hidden);
    function selected() {
      if (state.range) return state.range;
      if (state.anchor === null) return null;
      const first = Math.min(state.anchor, state.cursor), last = Math.max(state.anchor, state.cursor);
      return [words[first].start, words[last].end];
    }
    function toWords(range) {  // the words the range touches, edge to edge; null if it touches none
      const touched = words.filter(word => word.start < range[1] && range[0] < word.end);
      return touched.length ? [touched[0].start, touched[touched.length - 1].end] : null;
    }
    function trimmed(range) {  // a mark neither begins nor ends with a space
      let [start, end] = range;
      while (start < end && /\s/u.test(chars[start])) start++;
      while (end > start && /\s/u.test(chars[end - 1])) end--;
      return start < end ? [start, end] : null;
    }
    function render() {
      const marks = [];
      let colour = 0;
      widgets.forEach(widget => {
        widget.read().forEach(([start, end, label]) => marks.push(
          {start, end, label, colour: colour + widget.labels.indexOf(label), name: widget.name}));
        colour += widget.labels.length;
      });
      const range = selected();
      const cuts = new Set([0, chars.length]);
      words.forEach(word => { cuts.add(word.start); cuts.add(word.end); });
      marks.forEach(mark => { cuts.add(mark.start); cuts.add(mark.end); });
      if (range) { cuts.add(range[0]); cuts.add(range[1]); }
      const points = [...cuts].filter(n => n >= 0 && n <= chars.length).sort((a, b) => a - b);
      const pieces = [];
      let w = 0;
      for (let i = 0; i + 1 < points.length; i++) {
        const start = points[i], end = points[i + 1];
        while (w < words.length && words[w].end <= start) w++;
        const inWord = w < words.length && words[w].start <= start;
        const over = marks.filter(mark => mark.start < end && start < mark.end);
        const piece = document.createElement("span");
        piece.textContent = chars.slice(start, end).join("");
        piece.dataset.start = start;
        const classes = [inWord ? "tok" : "gap"];
        if (inWord) piece.dataset.w = w;
        if (over.length) classes.push("marked", "mark-" + Math.min(over[0].colour, 5));
        if (over.length > 1) classes.push("marked-more");
        if (range && range[0] <= start && end <= range[1]) classes.push("kbsel");
        if (inWord && w === state.cursor) classes.push("cursor");
        piece.className = classes.join(" ");
        if (over.length) piece.title = over.map(mark => (widgets.length > 1 ? mark.name + ": " : "") + mark.label).join(", ");
        pieces.push(piece);
      }
      root.replaceChildren(...pieces);
      widgets.forEach(widget => widget.list());
      links.forEach(link => link.refresh());
    }
    function pickWord(w, extend) {
      // A second click (or tap: phones have no Shift and no drag) ends what the first began.
      state.range = null;
      if ((extend || state.open) && state.anchor !== null) { state.cursor = w; state.open = false; }
      else { state.anchor = w; state.cursor = w; state.open = true; }
    }
    function offsetOf(node, offset) {  // a selection's end as a character offset of the text
      if (node === root) return offset >= root.childNodes.length ? chars.length : Number(root.childNodes[offset].dataset.start);
      const piece = node.nodeType === Node.TEXT_NODE ? node.parentElement : node;
      const before = node.nodeType === Node.TEXT_NODE ? node.textContent.slice(0, offset)
        : (offset ? piece.textContent : "");
      return Number(piece.dataset.start) + Array.from(before).length;
    }
    const wordOf = event => event.target.closest ? event.target.closest("[data-w]") : null;
    root.addEventListener("mousedown", event => {
      const word = wordOf(event);
      if (byCharacters()) { state.dragging = true; return; }  // the browser selects; mouseup reads it
      event.preventDefault();
      if (!word) return;
      pickWord(Number(word.dataset.w), event.shiftKey);
      state.dragging = true;
      render();
    });
    root.addEventListener("mouseover", event => {
      const word = wordOf(event);
      // A new word under a pressed button drags; the same word again (render() replaces the words under the pointer,
      // and the browser says so) leaves a first click open.
      if (!state.dragging || !word || byCharacters() || Number(word.dataset.w) === state.cursor) return;
      state.cursor = Number(word.dataset.w);
      state.open = false;
      render();
    });
    document.addEventListener("mouseup", event => {
      if (!state.dragging) return;
      state.dragging = false;
      if (!byCharacters()) return;
      const selection = window.getSelection();
      if (selection && !selection.isCollapsed && root.contains(selection.anchorNode) && root.contains(selection.focusNode)) {
        const ends = [offsetOf(selection.anchorNode, selection.anchorOffset), offsetOf(selection.focusNode, selection.focusOffset)];
        selection.removeAllRanges();
        const range = trimmed([Math.min(...ends), Math.max(...ends)]);
        if (range) { state.range = range; state.anchor = null; state.open = false; }
      } else {
        const word = wordOf(event);
        if (word && root.contains(word)) pickWord(Number(word.dataset.w), event.shiftKey);
      }
      render();
    });
    root.addEventListener("keydown", event => {
      if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
      event.preventDefault();
      event.stopPropagation();
      const step = event.key === "ArrowRight" ? 1 : -1;
      const next = Math.max(0, Math.min(words.length - 1, (state.cursor === null ? -step : state.cursor) + step));
      if (!event.shiftKey || state.anchor === null) state.anchor = next;
      state.cursor = next;
      state.range = null;
      render();
    });
    function mark(widget, label) {
      let range = selected();
      if (range && !widget.characters) range = toWords(range);
      if (!range) return false;
      const [start, end] = range;
      let spans = widget.read().filter(span => !(span[0] < end && start < span[1]));  // a new mark replaces what it covers
      if (widget.onePerLabel) spans = spans.filter(span => span[2] !== label);
      spans.push([start, end, label]);
      spans.sort((a, b) => a[0] - b[0]);
      Object.assign(state, {anchor: null, open: false, range: null});
      widget.write(spans);
      return true;
    }
    const shown = span => `${span[2]}: “${chars.slice(span[0], span[1]).join("")}”`;
    return {chars, widgets, links, render, mark, shown};
  }
  const spanTexts = new Map(items.filter(item => item.querySelector(".span-text"))
    .map(item => [item, spanText(item.querySelector(".span-text"))]));
  function spanWidget(root) {
    const text = spanTexts.get(root.closest(".task-item"));
    const field = root.querySelector(".span-field");
    const shown = root.querySelector(".span-list");
    const scheme = root.closest(".scheme");
    const widget = {
      scheme, name: scheme.dataset.scheme, characters: root.dataset.unit === "characters",
      onePerLabel: root.dataset.onePerLabel === "true",
      labels: [...root.querySelectorAll(".span-label")].map(button => button.dataset.label),
      read: () => { try { return JSON.parse(field.value || "[]"); } catch (error) { return []; } },
      write(spans) {
        field.value = spans.length ? JSON.stringify(spans) : "";
        text.render();
        changed(field);
      },
      list() {
        if (extra && extra.listed()) return;  // answered: nothing to mark
        const spans = widget.read();
        shown.replaceChildren(...spans.map((span, n) => {
          const li = document.createElement("li");
          const name = document.createElement("strong");
          name.textContent = span[2] + ": ";
          const remove = document.createElement("button");
          remove.type = "button";
          remove.className = "small secondary";
          remove.textContent = "Remove";
          remove.setAttribute("aria-label", "Remove " + span[2]);
          remove.addEventListener("click", () => { const kept = widget.read(); kept.splice(n, 1); widget.write(kept); });
          li.append(name, text.chars.slice(span[0], span[1]).join(""), " ", ...(extra ? extra.picker(span, n) : []), remove);
          return li;
        }));
      },
      mark: label => text.mark(widget, label),
    };
    // A pick asked of each span, or a button answering there is nothing to mark: designs/span-extras.js.
    const extra = window.crowdsetSpanExtras && (root.dataset.attribute || root.querySelector(".span-nothing"))
      ? window.crowdsetSpanExtras.widget({widget, root, field, shown, text, changed}) : null;
    text.widgets.push(widget);
    root.querySelectorAll(".span-label").forEach(button => button.addEventListener("click", () => {
      if (!widget.mark(button.dataset.label)) shown.setAttribute("data-hint", "select words first");
    }));
    return widget;
  }
  const spanWidgets = new Map([...form.querySelectorAll(".span-widget")].map(root => [root, spanWidget(root)]));

  // Links between spans (span_link) and a pick asked of each span: designs/span-extras.js, where a page has them.
  if (window.crowdsetSpanExtras) window.crowdsetSpanExtras.links({form, spanTexts, changed});
  spanTexts.forEach(text => text.render());
  return {texts: spanTexts, widgets: spanWidgets};
};
