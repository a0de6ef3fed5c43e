// Interlinear glossed text (designs/schemes/interlinear_gloss.py, Potato's interlinear_gloss): each word's
// segmentation and gloss are checked as they are typed, with the rules of check_word and unknown_labels there
// (Leipzig rule 2: the same - and = boundaries in the same order); the gloss is shown again with its category
// labels in small caps; Enter moves to the same line of the next word (Shift+Enter: the previous), as in Potato.
(() => {
  const ELEMENT = /[^.:;_\\()\[\]\s<>=\-]+/g;
  const CATEGORY = /^[0-9A-ZØ]+$/;
  const PERSON = /^([123]+)([0-9A-Z]*)$/;
  const INFIX = /<([^<>]*)>/g;

  function cell(text) {
    const flat = text.trim().replace(INFIX, "");
    const parts = flat.split(/([-=])/);
    return {pieces: parts.filter((_, i) => i % 2 === 0), bounds: parts.filter((_, i) => i % 2 === 1),
            infixes: (text.match(INFIX) || []).length};
  }
  function boundaries(bounds, infixes) {
    const count = bounds.length + 2 * infixes;
    if (!count) return "no boundaries";
    return `${count} boundar${count === 1 ? "y" : "ies"} (${[...bounds, ...Array(infixes).fill("<>")].join(" ")})`;
  }
  function checkWord(morphemes, gloss) {
    const m = morphemes.trim(), g = gloss.trim();
    if (!m && !g) return ["empty", []];
    if (!g || !m) return ["incomplete", [!g ? "no gloss yet" : "no segmentation yet"]];
    const said = [];
    if (/\s/.test(m)) said.push("the segmentation holds a space: join morphemes with - or =");
    if (/\s/.test(g)) said.push("the gloss holds a space: join the words of one gloss with . (rule 4)");
    const ms = cell(m), gs = cell(g);
    if (ms.bounds.join("") !== gs.bounds.join("") || ms.infixes !== gs.infixes) {
      said.push(`segmentation has ${boundaries(ms.bounds, ms.infixes)}, gloss has ${boundaries(gs.bounds, gs.infixes)}`);
    } else {
      const empty = list => list.map((piece, i) => piece.trim() ? "" : String(i + 1)).filter(Boolean);
      if (empty(ms.pieces).length) said.push("empty morpheme at position " + empty(ms.pieces).join(", "));
      if (empty(gs.pieces).length) said.push("no gloss for morpheme " + empty(gs.pieces).join(", "));
    }
    return [said.length ? "misaligned" : "ok", said];
  }
  const isCategory = el => ["1", "2", "3"].includes(el) || (!/^[0-9]+$/.test(el) && CATEGORY.test(el));
  function known(el, labels) {
    if (labels.has(el) || el === "Ø") return true;
    const person = PERSON.exec(el);
    if (person && [...person[1]].every(d => labels.has(d)) && (!person[2] || known(person[2], labels))) return true;
    return el.length > 1 && el[0] === "N" && labels.has("N") && known(el.slice(1), labels);
  }
  function unknownLabels(gloss, labels) {
    if (!labels) return [];
    return [...new Set((gloss.match(ELEMENT) || []).filter(el => isCategory(el) && !known(el, labels)))];
  }
  function render(target, gloss) {  // the gloss again, its category labels in small caps
    target.textContent = "";
    let last = 0;
    for (const found of gloss.matchAll(ELEMENT)) {
      target.append(gloss.slice(last, found.index));
      if (isCategory(found[0]) && found[0] !== "Ø") {
        const label = document.createElement("span");
        label.className = "igt-cat";
        label.textContent = found[0];
        target.append(label);
      } else target.append(found[0]);
      last = found.index + found[0].length;
    }
    target.append(gloss.slice(last) || (gloss ? "" : " "));
  }

  function paint(list) {
    const labels = JSON.parse(list.dataset.known || "null");
    const set = labels && new Set(labels);
    const misaligned = [], unfinished = [];
    let unknown = 0;
    [...list.querySelectorAll(".igt-word:not(.igt-head)")].forEach((word, place) => {
      const [morphemes, gloss] = word.querySelectorAll(".igt-input");
      const [status, said] = checkWord(morphemes.value, gloss.value);
      const strange = unknownLabels(gloss.value, set);
      if (status === "misaligned") misaligned.push(place + 1);
      else if (status !== "ok") unfinished.push(place + 1);
      if (strange.length) unknown += 1;
      for (const input of [morphemes, gloss]) {
        if (status === "misaligned") input.setAttribute("aria-invalid", "true");
        else input.removeAttribute("aria-invalid");
      }
      const issue = word.querySelector(".igt-issue");
      issue.textContent = "";
      if (status === "misaligned" || status === "incomplete") {
        const note = document.createElement("span");
        note.className = status === "misaligned" ? "igt-issue-error" : "igt-issue-note";
        note.textContent = (status === "misaligned" ? "Misaligned: " : "") + said.join("; ");
        issue.append(note);
      }
      if (strange.length) {
        const note = document.createElement("span");
        note.className = "igt-issue-warn";
        note.textContent = `Unknown label${strange.length > 1 ? "s" : ""}: ${strange.join(", ")}`;
        issue.append(note);
      }
      render(word.querySelector(".igt-render"), gloss.value);
      const longest = Math.max(...[word.querySelector(".igt-source"), ...word.querySelectorAll(".igt-input")].map(
        part => (part.value === undefined ? part.textContent : part.value).length));
      word.style.setProperty("--igt-width", `${Math.min(Math.max(longest + 2, 6), 48)}ch`);
    });
    const count = list.querySelectorAll(".igt-word:not(.igt-head)").length;
    const parts = [`${count} word${count === 1 ? "" : "s"}`, misaligned.length ? `${misaligned.length} misaligned`
      : "all aligned"];
    if (unfinished.length) parts.push(`${unfinished.length} not yet glossed`);
    if (unknown) parts.push(`${unknown} with unknown labels`);
    const box = list.closest("fieldset");
    const summary = box.querySelector(".igt-summary");
    summary.textContent = parts.join(" · ");
    summary.classList.toggle("invalid", misaligned.length > 0);
    // A required scheme is answered only when every word is glossed and aligned (as the server reads it).
    const scheme = list.closest(".scheme") || box;
    if (list.dataset.required && (misaligned.length || unfinished.length)) scheme.dataset.invalid = "true";
    else delete scheme.dataset.invalid;
  }

  // Caught on the way down, so the page's count of answered items (design.js, on the form) reads it painted.
  document.addEventListener("input", event => {
    const box = event.target.closest && event.target.closest(".scheme-box");
    const list = box && box.querySelector(".igt-words");
    if (!list) return;
    box.querySelector(".igt-given").value = "given";
    paint(list);
  }, true);
  document.addEventListener("keydown", event => {
    const input = event.target;
    if (event.key !== "Enter" || event.isComposing || !input.matches || !input.matches(".igt-input")) return;
    event.preventDefault();
    event.stopPropagation();  // Enter moves between words; it does not move on or submit
    const word = input.closest(".igt-word");
    const line = [...word.querySelectorAll(".igt-input")].indexOf(input);
    const next = event.shiftKey ? word.previousElementSibling : word.nextElementSibling;
    if (next && !next.classList.contains("igt-head")) {
      const target = next.querySelectorAll(".igt-input")[line];
      target.focus();
      target.select();
    } else if (!event.shiftKey) {
      const translation = word.closest("fieldset").querySelector(".igt-translation textarea");
      if (translation) translation.focus();
    }
  }, true);
  const all = () => document.querySelectorAll(".igt-words");
  document.addEventListener("DOMContentLoaded", () => all().forEach(paint));
  all().forEach(paint);
})();
