// The facts / counter-facts page: each statement line is checked as it is typed against the paragraph's
// rules (the same rules the server checks again, core/textrules.py, with the same notion of a word), the
// note under the line names the rule it breaks, and submit opens when every paragraph has a statement and
// no line breaks a rule.
(function () {
  const task = window.crowdsetTask;
  const {form, items} = task;
  const progress = document.getElementById("cf-progress");
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
  // The same rules, order and wording as core.textrules.check (the server's messages).
  function refusals(statement, rules) {
    const text = statement.trim();
    if (!text) return [];
    const found = words(text), out = [];
    if (text.length > rules.max_chars) out.push(`length: is ${text.length} characters long; keep it under ${rules.max_chars}`);
    if (found.length < rules.min_words) {
      out.push(`words: has ${found.length} word${found.length === 1 ? "" : "s"}; write a statement of at least ${rules.min_words} words`);
    }
    const shared = overlap(text, rules.source);
    if (shared > rules.max_overlap) {
      out.push(`copy: ${percent(shared)} of its words are in the paragraph (at most ${percent(rules.max_overlap)}); write it in your own words, do not copy`);
    }
    const used = [...new Set(found.filter(word => rules.banned.includes(word)))].sort();
    if (used.length) out.push(`banned: uses ${used.map(word => "'" + word + "'").join(", ")}; state it without ${rules.banned.join(" or ")}`);
    if (rules.mention && !mentions(text, rules.entity)) out.push(`mention: does not mention '${rules.entity}'; write about the highlighted words`);
    return out;
  }

  function checkLine(input, rules) {
    const problems = refusals(input.value, rules);
    const note = document.getElementById(input.id + "-note");
    note.textContent = problems.join(" ");
    input.setAttribute("aria-invalid", problems.length ? "true" : "false");
    input.closest(".fact-line").classList.toggle("invalid", problems.length > 0);
    return problems.length === 0;
  }
  function refresh() {
    let done = 0, ok = true;
    items.forEach(item => {
      const rules = JSON.parse(item.dataset.rules);
      const inputs = [...item.querySelectorAll(".fact-input")];
      const good = inputs.map(input => checkLine(input, rules));
      const written = inputs.filter(input => input.value.trim()).length;
      ok = ok && good.every(Boolean);
      if (written && good.every(Boolean)) done += 1;
      item.classList.toggle("done", written > 0 && good.every(Boolean));
    });
    progress.textContent = done + " of " + items.length + " paragraphs written";
    task.ready(ok && done === items.length);
  }
  // Writing-behaviour evidence for the reviewer (facts/evidence.py reads it): keys, pastes and pasted
  // characters per line, when the line was first and last changed, and how often the page lost focus.
  const evidenceField = document.getElementById("fact-evidence");
  const evidence = {lines: {}, blurs: 0};
  const started = performance.now();
  function seen(target) {
    if (!target.classList || !target.classList.contains("fact-input")) return null;
    const line = evidence.lines[target.name] || (evidence.lines[target.name] = {keys: 0, pastes: 0, pasted: 0});
    const now = Math.round(performance.now() - started);
    if (line.first === undefined) line.first = now;
    line.last = now;
    return line;
  }
  function keep() { if (evidenceField) evidenceField.value = JSON.stringify(evidence); }
  form.addEventListener("keydown", event => {
    const line = seen(event.target);
    // Keys that write: a shortcut (Ctrl+V, Cmd+A) is not typing.
    if (line && !event.ctrlKey && !event.metaKey && (event.key.length === 1 || event.key === "Backspace")) {
      line.keys += 1;
      keep();
    }
  });
  form.addEventListener("paste", event => {
    const line = seen(event.target);
    if (!line) return;
    const text = event.clipboardData ? event.clipboardData.getData("text") : "";
    line.pastes += 1;
    line.pasted += text.length;
    keep();
  });
  window.addEventListener("blur", () => { evidence.blurs += 1; keep(); });
  form.addEventListener("input", event => {
    if (!event.target.classList.contains("fact-input")) return;
    seen(event.target);
    keep();
    refresh();
    task.saveSoon();
  });
  task.onCurrent(() => {});
  task.restore();
  refresh();
  task.setCurrent(0, {focus: false});
})();
