// The generic task page of a design file: keys on the item the worker is on, display logic, the required
// check, sliders that count only once moved, and the span widget. Everything here is a convenience: the
// server reads and checks every answer again (designs/schemes).
(function () {
  const task = window.crowdsetTask;
  const {form, items} = task;
  // Each scheme's keys, required flag and display logic are written once for the page (designs/_task.html);
  // every item's widget carries them as data attributes from here on.
  const settings = JSON.parse(document.getElementById("design-schemes")?.textContent || "{}");
  form.querySelectorAll(".scheme[data-n]").forEach(scheme => {
    const own = settings[scheme.dataset.n] || {};
    scheme.dataset.keys = JSON.stringify(own.keys || {});
    if (own.required) scheme.dataset.required = "true";
    if (own.showWhen) scheme.dataset.showWhen = JSON.stringify(own.showWhen);
    // How the widget is treated, as its scheme type says (designs.schemes: `page`).
    Object.assign(scheme.dataset, own.page || {});
    if (scheme.querySelector("[data-asks-nothing]")) scheme.dataset.asks = "0";  // nothing to ask of this item
    // A choice's key beside it (the widgets of choices; the others write theirs): only a page whose script runs
    // has keys to show.
    if (scheme.dataset.badges !== "1") return;
    scheme.querySelectorAll("input[type=radio], input[type=checkbox]").forEach(input => {
      const label = input.dataset.label || input.value;
      const key = Object.keys(own.keys || {}).find(k => own.keys[k] === label);
      if (!key) return;
      input.setAttribute("aria-keyshortcuts", key);
      if (key === label) return;  // a scale's point 3 on key 3 says so already
      const badge = document.createElement("span");
      badge.className = "choice-key";
      badge.setAttribute("aria-hidden", "true");
      badge.textContent = key;
      input.after(badge);
    });
  });
  const progress = document.getElementById("cf-progress");
  const changesField = document.getElementById("cf-changes");
  const started = performance.now();
  const changes = [];
  const schemesOf = item => [...item.querySelectorAll(".scheme")];
  const named = (scheme, suffix) => [...scheme.querySelectorAll("[name]")].filter(
    input => suffix === undefined || input.name === scheme.dataset.field + suffix);

  // --- what a scheme's answer is now ---------------------------------------------------------------
  function value(scheme) {
    const reads = scheme.dataset.value;
    const inputs = named(scheme);
    if (reads === "checked") return inputs.filter(i => i.checked).map(i => i.dataset.label);
    if (reads === "spans") {
      const field = named(scheme, "")[0];
      if (field.value === "none") return ["none"];  // answered: nothing to mark
      try { return JSON.parse(field.value || "[]").map(span => span[2]); } catch (error) { return []; }
    }
    if (reads === "every") {
      const groups = new Set(inputs.map(i => i.name));
      const picked = inputs.filter(i => i.checked);
      return picked.length === groups.size ? picked.map(i => i.value) : (picked.length ? null : "");
    }
    if (reads === "texts") return inputs.filter(i => !i.disabled && (i.type !== "checkbox" && i.type !== "radio" || i.checked))
      .map(i => i.value.trim()).filter(Boolean).join("\n");  // a box unticked, or a control not in use, says nothing
    if (reads === "order") {
      try { return JSON.parse(named(scheme, "")[0].value || "[]"); } catch (error) { return []; }
    }
    const checked = inputs.find(i => i.type === "radio" && i.checked);
    if (checked) return checked.value;
    const plain = inputs.find(i => i.type !== "radio");
    return plain ? plain.value.trim() : "";
  }
  const empty = found => found === "" || found === null || (Array.isArray(found) && !found.length);
  const NUMERIC = ["gt", "gte", "lt", "lte", "in_range", "not_in_range"];
  const number = v => (v === null || v === "" || typeof v === "boolean" || isNaN(Number(v))) ? null : Number(v);
  function compare(op, wanted, found) {  // as designs/answers.py _compare
    const n = number(found);
    if (n === null) return false;
    if (op === "in_range" || op === "not_in_range") {
      const [low, high] = Array.isArray(wanted) && wanted.length === 2 ? wanted.map(number) : [null, null];
      const inside = low !== null && high !== null && low <= n && n <= high;
      return op === "in_range" ? inside : !inside;
    }
    const bound = number(wanted);
    if (bound === null) return false;
    return {gt: n > bound, gte: n >= bound, lt: n < bound, lte: n <= bound}[op];
  }
  function holds(condition, found) {
    const wanted = (Array.isArray(condition.value) ? condition.value : [condition.value]).map(String);
    const op = condition.operator || "equals";
    if (op === "answered") return !empty(found);
    if (op === "empty") return empty(found);
    if (empty(found)) return false;  // nothing depends on a scheme not answered yet
    if (NUMERIC.includes(op)) return compare(op, condition.value, found);
    const values = (Array.isArray(found) ? found : [found]).map(String);
    const equal = values.some(v => wanted.includes(v));
    const contains = values.some(v => wanted.some(w => v.includes(w)));
    return {equals: equal, not_equals: !equal, contains: contains, not_contains: !contains}[op];
  }
  // The person's condition ({factor: level}), which display logic may test as "condition.<factor>": written into
  // their page when it is served (designs.conditions); none on a page every worker shares.
  const conditionsNode = document.getElementById("design-conditions");
  const conditions = conditionsNode ? JSON.parse(conditionsNode.textContent) : {};
  function given(byName, name) {
    if (name.startsWith("condition.")) return conditions[name.slice("condition.".length)] ?? "";
    return byName[name] ? value(byName[name]) : "";
  }
  function applyLogic(item) {
    const byName = Object.fromEntries(schemesOf(item).map(s => [s.dataset.scheme, s]));
    schemesOf(item).forEach(scheme => {
      if (!scheme.dataset.showWhen) return;
      const logic = JSON.parse(scheme.dataset.showWhen);
      const results = logic.show_when.map(c => holds(c, given(byName, c.schema)));
      scheme.hidden = !(logic.logic === "any" ? results.some(Boolean) : results.every(Boolean));
    });
  }
  // --- text rules: each box checked as it is typed, as the server checks it (core/textrules.py) ---------
  const WORD = /[\p{L}\p{N}_']+/gu;
  const words = text => (text.match(WORD) || []).map(word => word.toLowerCase());
  function overlap(statement, source) {
    const found = words(statement);
    if (!found.length) return 0;
    const known = new Set(words(source));
    return found.filter(word => known.has(word)).length / found.length;
  }
  function mentions(statement, entity) {
    const needle = words(entity), hay = words(statement);
    if (!needle.length) return false;
    for (let start = 0; start + needle.length <= hay.length; start++) {
      if (needle.every((word, i) => hay[start + i] === word)) return true;
    }
    return false;
  }
  const percent = share => Math.round(share * 100) + "%";
  const count = n => n.toLocaleString("en-US");
  const quoted = word => "'" + word + "'";
  function refusals(statement, rules) {  // the same rules, order and wording as core.textrules.check
    const text = statement.trim();
    if (!text) return [];
    const found = words(text), out = [];
    if (text.length > rules.max_chars) out.push(`length: is ${count(text.length)} characters long; keep it under ${count(rules.max_chars)}`);
    if (found.length < rules.min_words) out.push(`words: has ${found.length} word${found.length === 1 ? "" : "s"}; write at least ${rules.min_words}`);
    if (rules.max_words !== null && found.length > rules.max_words) out.push(`words: has ${found.length} words; write at most ${rules.max_words}`);
    const source = words(rules.source);
    const shared = overlap(text, rules.source);
    if (rules.differ && found.length && found.join(" ") === source.join(" ")) out.push(`copy: is the same as the ${rules.source_name}; change it`);
    else if (rules.max_overlap !== null && shared > rules.max_overlap) {
      out.push(`copy: ${percent(shared)} of its words are in the ${rules.source_name} (at most ${percent(rules.max_overlap)}); write it in your own words, do not copy`);
    }
    const used = [...new Set(found.filter(word => rules.banned.includes(word)))].sort();
    if (used.length) out.push(`banned: uses ${used.map(quoted).join(", ")}; write it without ${rules.banned.map(quoted).join(" or ")}`);
    if (rules.mention && !mentions(text, rules.entity)) out.push(`mention: does not mention ${quoted(rules.entity)}; write about the highlighted words`);
    return out;
  }
  // An answer that starts as the item's text (prefill_key) is an edit of it, measured as the server measures it
  // (core/stories.py: its words, the word edit distance, the words kept in order).
  const EDIT_WORD = /[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu;
  const editWords = text => (text.match(EDIT_WORD) || []).map(word => word.toLowerCase());
  function editSize(before, after) {
    let previous = Array.from({length: after.length + 1}, (_, j) => j);
    let common = new Array(after.length + 1).fill(0);
    before.forEach((word, i) => {
      const current = [i + 1], shared = [0];
      after.forEach((other, j) => {
        const match = word === other;
        current.push(Math.min(previous[j + 1] + 1, current[j] + 1, previous[j] + (match ? 0 : 1)));
        shared.push(match ? common[j] + 1 : Math.max(common[j + 1], shared[j]));
      });
      previous = current;
      common = shared;
    });
    const total = before.length, distance = previous[after.length], kept = common[after.length];
    const changed = total ? distance / total : 0, keptShare = total ? kept / total : 1;
    return {changed, kept: keptShare, text: `${distance} word edit${distance === 1 ? "" : "s"} for ${total} words (${percent(changed)} changed, ${percent(keptShare)} kept)`};
  }
  function editProblem(edit, inputs) {  // as designs/schemes/text.py edit_refusal
    const parts = inputs.map(input => input.value.trim());
    if (!parts.some(Boolean)) return ["", ""];  // nothing written: the required check speaks
    const emptied = edit.labels.findIndex((label, i) => i < edit.original.length && !parts[i]);
    if (edit.labels.length && parts.some(Boolean) && emptied >= 0) return [`${edit.labels[emptied]}: is empty; edit it, do not delete it`, ""];
    const before = editWords(edit.original.join(" ")), after = editWords(parts.join(" "));
    const size = editSize(before, after);
    if (edit.must_change && before.join(" ") === after.join(" ")) return ["edit: is unchanged; edit it", size.text];
    if (edit.max_changed !== null && size.changed > edit.max_changed + 1e-9) return [`edit: is rewritten, not edited: ${size.text}; change at most ${percent(edit.max_changed)} of the words`, ""];
    if (edit.min_kept !== null && size.kept < edit.min_kept - 1e-9) return [`edit: keeps too little: ${size.text}; keep at least ${percent(edit.min_kept)} of the words`, ""];
    return ["", size.text];
  }
  // A box breaking a rule keeps its item open; the note under it names the rule, as the server would.
  function textOk(scheme) {
    if (scheme.dataset.value !== "texts" || scheme.hidden) return true;
    const box = scheme.querySelector("[data-rules]");
    const rules = box && box.dataset.rules ? JSON.parse(box.dataset.rules) : null;
    if (!rules) return true;
    const inputs = [...scheme.querySelectorAll(".text-input")];
    const boxesOk = inputs.map(input => {
      const problems = refusals(input.value, rules);
      const note = document.getElementById(input.id + "-note");
      if (note) note.textContent = problems.join(" ");
      input.setAttribute("aria-invalid", problems.length ? "true" : "false");
      input.closest(".text-line").classList.toggle("invalid", problems.length > 0);
      return !problems.length;
    }).every(Boolean);
    if (!rules.edit) return boxesOk;
    const [problem, size] = editProblem(rules.edit, inputs);
    const note = document.getElementById(scheme.dataset.field + "-edit");
    if (note) {
      note.textContent = problem || size;
      note.classList.toggle("invalid", Boolean(problem));
    }
    return boxesOk && !problem;
  }
  // Picks that must differ (a set's best and worst) are named at once, as the server would refuse them.
  function distinctOk(scheme) {
    if (scheme.dataset.distinct !== "1" || scheme.hidden) return true;
    const picked = named(scheme).filter(input => input.checked).map(input => input.value);
    const same = picked.length > 1 && new Set(picked).size < picked.length;
    const note = scheme.querySelector(".pick-note");
    if (note) {
      note.textContent = same ? "The best and the worst must be different options." : "";
      note.classList.toggle("invalid", same);
    }
    return !same;
  }
  function done(item) {
    if (!schemesOf(item).map(textOk).every(Boolean) || !schemesOf(item).map(distinctOk).every(Boolean)) return false;
    if (schemesOf(item).some(s => !s.hidden && s.dataset.invalid)) return false;  // a widget's own script says so
    const shown = schemesOf(item).filter(s => !s.hidden && s.dataset.asks !== "0");
    const required = shown.filter(s => s.dataset.required === "true");
    if (required.length) return required.every(s => !empty(value(s)));
    return !shown.length || shown.some(s => !empty(value(s)));
  }
  function refresh() {
    items.forEach(applyLogic);
    const finished = items.filter(done).length;
    progress.textContent = finished + " of " + items.length + " answered";
    items.forEach(item => item.classList.toggle("done", done(item)));
    task.ready(finished === items.length);
  }
  function changed(target) {
    const item = target.closest(".task-item");
    if (!item) return;
    changes.push({item: item.dataset.item, field: target.name || "", value: String(target.value).slice(0, 100),
                  ms: Math.round(performance.now() - started)});
    if (changesField) changesField.value = JSON.stringify(changes.slice(-500));
    refresh();
    task.saveSoon();
  }
  form.addEventListener("change", event => changed(event.target));
  form.addEventListener("input", event => {
    if (event.target.type === "range" && !event.target.closest(".points")) {  // a group's: designs/points.js
      const hidden = form.querySelector(`[name="${CSS.escape(event.target.dataset.sets)}"]`);
      hidden.value = event.target.value;
      event.target.parentElement.querySelector("output").textContent = event.target.value;
      changed(hidden);
    } else if (event.target.tagName === "TEXTAREA" || event.target.type === "text") {
      refresh();
      task.saveSoon();
    }
  });

  // --- spans: designs/spans.js, on the pages that have a span scheme -----------------------------------
  const spans = window.crowdsetSpans ? window.crowdsetSpans({form, items, changed})
    : {texts: new Map(), widgets: new Map()};
  // --- numbers that hold each other (a range, points shared out): designs/points.js, where a page has them ----
  const points = window.crowdsetPoints ? window.crowdsetPoints({form, changed}) : {restore() {}};

  // --- ranking: designs/ranking.js, where a page has a ranking -----------------------------------------
  const rankingWidgets = window.crowdsetRanking ? window.crowdsetRanking({form, changed}) : [];

  // --- keys ----------------------------------------------------------------------------------------
  function pressKey(key) {
    const item = items[task.current];
    if (!item) return false;
    const shown = schemesOf(item).filter(s => !s.hidden && s.dataset.keys && s.dataset.keys !== "{}");
    const takers = shown.filter(s => Object.hasOwn(JSON.parse(s.dataset.keys), key));
    const scheme = takers.find(s => empty(value(s))) || takers[0];
    if (!scheme) return false;
    const chosen = JSON.parse(scheme.dataset.keys)[key];
    if (scheme.dataset.keyAction === "mark") return spans.widgets.get(scheme.querySelector(".span-widget")).mark(chosen);
    const toggles = scheme.dataset.keyAction === "toggle";
    const input = toggles
      ? [...scheme.querySelectorAll("input[type=checkbox]")].find(i => i.dataset.label === chosen)
      : [...scheme.querySelectorAll("input[type=radio]")].find(i => (i.dataset.choice || i.value) === chosen);
    if (!input) return false;
    input.checked = toggles ? !input.checked : true;
    input.dispatchEvent(new Event("change", {bubbles: true}));
    // A pick that answers the item's last keyed question moves on; a box's key only ticks or unticks it (as in
    // Potato), so several boxes can be ticked by key before j or the next pick moves on. One item at a time, only
    // Next and → move on, as in Potato.
    if (!toggles && !document.getElementById("item-steps") && done(item) && task.current < items.length - 1 && !schemesOf(item).some(s => !s.hidden
        && empty(value(s)) && s.dataset.keys !== "{}")) task.setCurrent(task.current + 1, {focus: true, scroll: true});
    return true;
  }
  // On a radio, ↑ and ↓ move its group's pick, as in any group of radios (Tab reaches only one of them) and as
  // Potato leaves them: a question no key picks (a pairwise scale) is answered so by keyboard alone.
  const arrowsPick = event => event.target.type === "radio" && (event.key === "ArrowUp" || event.key === "ArrowDown");
  document.addEventListener("keydown", event => {
    if (task.typing(event) || arrowsPick(event)) return;
    const key = event.key;
    const go = n => { task.setCurrent(n, {focus: true, scroll: true}); event.preventDefault(); };
    if (key === "j" || key === "ArrowDown") go(task.current + 1);
    else if (key === "k" || key === "ArrowUp") go(task.current - 1);
    else if (key.length === 1 && pressKey(key)) event.preventDefault();
    else if (key === "Enter" && task.enterIsFree(event) && !task.submits[0].disabled) {
      event.preventDefault();
      form.requestSubmit(task.submits[0]);
    }
  });

  // One item at a time (the design's hits.layout: item): only the current item shows; Previous and Next, and
  // the arrow keys, move between them. Every item stays in the form, so all are sent on submit.
  const steps = document.getElementById("item-steps");
  if (steps) {
    const place = document.getElementById("item-place");
    const noun = place.textContent.split(" ")[0];
    const show = n => {
      items.forEach((item, i) => { item.hidden = i !== n; });
      place.textContent = noun + " " + (n + 1) + " of " + items.length;
      document.getElementById("item-previous").disabled = n === 0;
      document.getElementById("item-next").disabled = n === items.length - 1;
    };
    task.onCurrent(show);
    document.getElementById("item-previous").addEventListener("click", () => task.setCurrent(task.current - 1,
      {focus: true}));
    document.getElementById("item-next").addEventListener("click", () => task.setCurrent(task.current + 1,
      {focus: true}));
    document.addEventListener("keydown", event => {
      if (task.typing(event) || (event.key !== "ArrowLeft" && event.key !== "ArrowRight")) return;
      if (event.target.closest && event.target.closest(".span-text")) return;  // the span widget's own moves
      event.preventDefault();
      task.setCurrent(task.current + (event.key === "ArrowRight" ? 1 : -1), {focus: true});
    });
  }
  task.onCurrent(refresh);
  // A model's suggestions for this worker (designs.suggestions): each item that has one is marked, as an item that
  // carries a suggestion in its data is. While they run they stand in for the items' own, so that a held-out pair
  // sees none.
  // The items' own notes wait hidden for this script, which fills what they say is filled: a page without it shows
  // no "pre-filled" over empty answers, nor the items' own while a model's suggestions run.
  form.querySelectorAll(".suggested-note[hidden]").forEach(note => { note.hidden = false; });
  const suggestions = JSON.parse(document.getElementById("task-suggestions")?.textContent || "null");
  if (suggestions) items.forEach(item => {
    delete item.dataset.suggested;
    item.querySelector(".suggested-note")?.remove();
    const fields = suggestions.items[item.dataset.item];
    if (!fields) return;
    item.dataset.suggested = JSON.stringify(fields);
    const note = document.createElement("p");
    note.className = "suggested-note notice";
    note.textContent = `Pre-filled with the suggestion of ${suggestions.model}: check each answer and change what is wrong.`;
    item.querySelector("legend").after(note);
  });
  // No draft yet: the items that carry a model's suggestion start with it (marked on the item as such).
  if (!task.restore()) items.forEach(item => { if (item.dataset.suggested) task.fill(JSON.parse(item.dataset.suggested)); });
  spans.texts.forEach(text => text.render());
  rankingWidgets.forEach(widget => widget.restore());
  points.restore();
  form.querySelectorAll("input[type=range]:not(.points input)").forEach(range => {
    const hidden = form.querySelector(`[name="${CSS.escape(range.dataset.sets)}"]`);
    if (hidden.value) { range.value = hidden.value; range.parentElement.querySelector("output").textContent = hidden.value; }
  });
  const first = items.findIndex(item => !done(item));
  window.focus();
  task.setCurrent(first < 0 ? 0 : first, {focus: true, scroll: first > 0});
})();
