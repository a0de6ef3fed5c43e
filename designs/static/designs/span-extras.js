// What a span widget does beyond marking (designs/spans.js calls it), on the pages that need it: a pick asked of
// every span marked (an error's severity), a button answering that there is nothing to mark, and links between two
// spans of a span scheme (span_link). Kept apart so that a span page without them stays small under MTurk's 64 KB.
window.crowdsetSpanExtras = {
  // One span widget's extras: its list draws "nothing" when so answered, and a picker beside each span.
  widget({widget, root, field, shown, text, changed}) {
    const attribute = root.dataset.attribute ? JSON.parse(root.dataset.attribute) : null;
    const nothing = root.querySelector(".span-nothing");
    const scored = root.querySelector(".span-score-value");
    function score(spans) {  // the score less each span's pick's weight, never below 0 (Potato's error_span)
      if (!scored || attribute.score_from == null) return;
      const less = spans.reduce((sum, span) => sum + Math.abs((attribute.weights || {})[span[3]] || 0), 0);
      scored.textContent = String(Math.max(0, attribute.score_from - less));
    }
    if (nothing) nothing.addEventListener("click", () => {
      field.value = "none";
      text.render();
      changed(field);
    });
    return {
      listed() {  // true when the answer is that there is nothing to mark, drawn so
        if (field.value === "none") {
          score([]);
          const li = document.createElement("li");
          li.textContent = nothing ? nothing.textContent : "nothing";
          shown.replaceChildren(li);
          return true;
        }
        // A span without its pick keeps the item open.
        if (attribute && widget.read().some(span => !span[3])) widget.scheme.dataset.invalid = "true";
        else delete widget.scheme.dataset.invalid;
        score(widget.read());
        return false;
      },
      picker(span, n) {  // the attribute's picker of one span, and a space after it
        if (!attribute) return [];
        const select = document.createElement("select");
        const what = attribute.description || attribute.name;
        select.setAttribute("aria-label", `${what} of ${span[2]} “${text.chars.slice(span[0], span[1]).join("")}”`);
        select.append(new Option(`(${what})`, ""), ...attribute.labels.map(label => new Option(label, label)));
        select.value = span[3] || "";
        select.addEventListener("change", () => {
          const spans = widget.read();
          spans[n] = [...spans[n].slice(0, 3), select.value];
          widget.write(spans);
          shown.querySelectorAll("select")[n].focus();  // the list is drawn again: the picker keeps the focus
        });
        return [select, " "];
      },
    };
  },
  // Every link widget of the page, each refreshed when its item's text is drawn again.
  links({form, spanTexts, changed}) {
    // Links between two spans a span scheme of the item marked (span_link): pickers a keyboard reaches, the first
    // span, the link and the second; a link goes when one of its spans is no longer marked.
    function linkWidget(root) {
      const text = spanTexts.get(root.closest(".task-item"));
      const field = root.querySelector(".link-field");
      const [from, kind, to] = [".link-from", ".link-type", ".link-to"].map(name => root.querySelector(name));
      const note = root.querySelector(".link-note");
      const list = root.querySelector(".link-list");
      const same = (a, b) => a[0] === b[0] && a[1] === b[1] && a[2] === b[2];
      const spans = () => {
        const widget = text && text.widgets.find(w => w.name === root.dataset.spans);
        return widget ? widget.read() : [];
      };
      const read = () => { try { return JSON.parse(field.value || "[]"); } catch (error) { return []; } };
      const store = links => { field.value = links.length ? JSON.stringify(links) : ""; };
      function option(span) {
        const choice = document.createElement("option");
        choice.value = span ? JSON.stringify(span) : "";
        choice.textContent = span ? text.shown(span) : "(mark spans first)";
        return choice;
      }
      function refresh() {
        const marked = spans(), given = read();
        const kept = given.filter(link => [link[1], link[2]].every(end => marked.some(span => same(span, end))));
        if (kept.length !== given.length) { store(kept); changed(field); }
        [from, to].forEach(select => {
          const before = select.value;
          select.replaceChildren(...(marked.length ? marked : [null]).map(option));
          if ([...select.options].some(choice => choice.value === before)) select.value = before;
        });
        list.replaceChildren(...kept.map((link, n) => {
          const li = document.createElement("li");
          const directed = [...kind.options].some(choice => choice.value === link[0] && choice.dataset.directed);
          const remove = document.createElement("button");
          remove.type = "button";
          remove.className = "small secondary";
          remove.textContent = "Remove";
          remove.setAttribute("aria-label", `Remove the ${link[0]} link`);
          remove.addEventListener("click", () => { const rest = read(); rest.splice(n, 1); store(rest); refresh(); changed(field); });
          li.append(`${text ? text.shown(link[1]) : ""} ${directed ? "→" : "↔"} ${link[0]} ${directed ? "→" : "↔"} ${text ? text.shown(link[2]) : ""} `, remove);
          return li;
        }));
      }
      function problem(first, second, picked) {  // as designs/schemes/span_link.py refuses it
        const sources = picked.dataset.sources ? picked.dataset.sources.split("|") : [];
        const targets = picked.dataset.targets ? picked.dataset.targets.split("|") : [];
        if (same(first, second)) return "Pick two different spans.";
        if (sources.length && !sources.includes(first[2])) return `A ${picked.value} link's first span must be a ${sources.join(" or a ")}.`;
        if (targets.length && !targets.includes(second[2])) return `A ${picked.value} link's second span must be a ${targets.join(" or a ")}.`;
        const twice = read().some(link => link[0] === picked.value && ((same(link[1], first) && same(link[2], second))
          || (!picked.dataset.directed && same(link[1], second) && same(link[2], first))));
        return twice ? "That link is there already." : "";
      }
      root.querySelector(".link-add").addEventListener("click", () => {
        if (!from.value || !to.value) { note.textContent = "Mark two spans first."; return; }
        const first = JSON.parse(from.value), second = JSON.parse(to.value), picked = kind.selectedOptions[0];
        note.textContent = problem(first, second, picked);
        if (note.textContent) return;
        store([...read(), [picked.value, first, second]]);
        refresh();
        changed(field);
      });
      if (text) text.links.push({refresh});
    }
    form.querySelectorAll(".link-widget").forEach(linkWidget);
  },
};
