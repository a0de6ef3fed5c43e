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
  // Every link and event widget of the page, each refreshed when its item's text is drawn again.
  links({form, spanTexts, changed}) {
    const same = (a, b) => a[0] === b[0] && a[1] === b[1] && a[2] === b[2];
    const an = word => `${/^[aeiou]/i.test(word) ? "an" : "a"} ${word}`;  // as designs/schemes/base.py's an
    // What a widget over another scheme's spans shares: its item's text, its field read and written as JSON, the
    // spans marked now, a picker's options drawn from them (keeping the pick), and a list with a Remove per entry.
    function over(root, what) {
      const text = spanTexts.get(root.closest(".task-item"));
      const field = root.querySelector(`.${what}-field`);
      const read = () => { try { return JSON.parse(field.value || "[]"); } catch (error) { return []; } };
      const store = entries => { field.value = entries.length ? JSON.stringify(entries) : ""; };
      const spans = () => {
        const widget = text && text.widgets.find(w => w.name === root.dataset.spans);
        return widget ? widget.read() : [];
      };
      function fill(select, marked, empty) {
        const before = select.value;
        select.replaceChildren(...(empty ? [empty] : []), ...(marked.length || empty ? marked : [null]).map(span => {
          const choice = document.createElement("option");
          choice.value = span ? JSON.stringify(span) : "";
          choice.textContent = span ? text.shown(span) : "(mark spans first)";
          return choice;
        }));
        if ([...select.options].some(choice => choice.value === before)) select.value = before;
      }
      function list(entries, name, words, refresh) {
        root.querySelector(`.${what}-list`).replaceChildren(...entries.map((entry, n) => {
          const li = document.createElement("li");
          const remove = document.createElement("button");
          remove.type = "button";
          remove.className = "small secondary";
          remove.textContent = "Remove";
          remove.setAttribute("aria-label", `Remove the ${name(entry)} ${what}`);
          remove.addEventListener("click", () => { const rest = read(); rest.splice(n, 1); store(rest); refresh(); changed(field); });
          li.append(`${words(entry)} `, remove);
          return li;
        }));
      }
      // Entries whose spans are all still marked; the others go, and the change is said.
      function kept(ends) {
        const marked = spans(), given = read();
        const keep = given.filter(entry => ends(entry).every(end => marked.some(span => same(span, end))));
        if (keep.length !== given.length) { store(keep); changed(field); }
        return [marked, keep];
      }
      const shown = span => (text ? text.shown(span) : "");
      return {text, field, read, store, fill, list, kept, shown, note: root.querySelector(`.${what}-note`)};
    }
    // Links between two spans a span scheme of the item marked (span_link): pickers a keyboard reaches, the first
    // span, the link and the second; a link goes when one of its spans is no longer marked.
    function linkWidget(root) {
      const {text, field, read, store, fill, list, kept, shown, note} = over(root, "link");
      const [from, kind, to] = [".link-from", ".link-type", ".link-to"].map(name => root.querySelector(name));
      function refresh() {
        const [marked, links] = kept(link => [link[1], link[2]]);
        [from, to].forEach(select => fill(select, marked));
        list(links, link => link[0], link => {
          const directed = [...kind.options].some(choice => choice.value === link[0] && choice.dataset.directed);
          const arrow = directed ? "→" : "↔";
          return `${shown(link[1])} ${arrow} ${link[0]} ${arrow} ${shown(link[2])}`;
        }, refresh);
      }
      function problem(first, second, picked) {  // as designs/schemes/span_link.py refuses it
        const sources = picked.dataset.sources ? picked.dataset.sources.split("|") : [];
        const targets = picked.dataset.targets ? picked.dataset.targets.split("|") : [];
        if (same(first, second)) return "Pick two different spans.";
        if (sources.length && !sources.includes(first[2])) return `${an(picked.value).replace(/^a/, "A")} link's first span must be ${sources.map(an).join(" or ")}.`;
        if (targets.length && !targets.includes(second[2])) return `${an(picked.value).replace(/^a/, "A")} link's second span must be ${targets.map(an).join(" or ")}.`;
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
    // Events over the spans a span scheme of the item marked (event_annotation): the event, its trigger (the spans
    // of the labels its type allows) and a span per role (likewise), added as one; an event of the same type and
    // trigger replaces the one there, as on Potato's page. An event goes when one of its spans is no longer marked.
    function eventWidget(root) {
      const {text, field, read, store, fill, list, kept, shown, note} = over(root, "event");
      const kind = root.querySelector(".event-type"), trigger = root.querySelector(".event-trigger");
      const roles = () => root.querySelector(`.event-roles[data-type="${CSS.escape(kind.value)}"]`);
      const allowed = (marked, labels) => (labels ? marked.filter(span => labels.split("|").includes(span[2])) : marked);
      function refresh() {
        const [marked, events] = kept(event => [event[1], ...event[2].map(pair => pair[1])]);
        root.querySelectorAll(".event-roles").forEach(group => { group.hidden = group !== roles(); });
        fill(trigger, allowed(marked, kind.selectedOptions[0].dataset.triggers));
        root.querySelectorAll(".event-role").forEach(select => {
          const empty = new Option("(none)", "");
          fill(select, allowed(marked, select.dataset.kinds), empty);
        });
        list(events, event => event[0], event => `${event[0]}: ${shown(event[1])}` +
          event[2].map(([role, span]) => `, ${role} = ${shown(span)}`).join(""), refresh);
      }
      kind.addEventListener("change", refresh);
      // The roles in the order they were first filled: an event's arguments are kept so, as on Potato's page (a role
      // given another span keeps its place; one emptied and filled again goes last).
      let picked = [];
      root.querySelectorAll(".event-role").forEach(select => select.addEventListener("change", () => {
        if (!select.value) picked = picked.filter(other => other !== select);
        else if (!picked.includes(select)) picked.push(select);
      }));
      const inOrder = selects => selects.sort((one, other) => picked.indexOf(one) - picked.indexOf(other));
      root.querySelector(".event-add").addEventListener("click", () => {
        const missing = [...roles().querySelectorAll(".event-role[data-required]")].filter(select => !select.value);
        note.textContent = !trigger.value ? "Pick the event's trigger first (mark a span it allows)."
          : missing.length ? `Pick the ${missing.map(select => select.dataset.role).join(" and the ")} first.` : "";
        if (note.textContent) return;
        const made = [kind.value, JSON.parse(trigger.value), inOrder([...roles().querySelectorAll(".event-role")]
          .filter(select => select.value)).map(select => [select.dataset.role, JSON.parse(select.value)])];
        const events = read().filter(event => !(event[0] === made[0] && same(event[1], made[1])));
        note.textContent = events.length < read().length ? `The ${made[0]} event on that trigger is replaced.` : "";
        store([...events, made]);
        roles().querySelectorAll(".event-role").forEach(select => { select.value = ""; });
        picked = [];
        refresh();
        changed(field);
      });
      if (text) text.links.push({refresh});
    }
    form.querySelectorAll(".link-widget").forEach(linkWidget);
    form.querySelectorAll(".event-widget").forEach(eventWidget);
  },
};
