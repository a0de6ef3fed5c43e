// The pages of the chains design and of human evaluation (chains/task_types.py checks everything again):
// - writing a counterfactual: the word count against the bounds, as it is typed, and the three conditions;
// - checking then editing: the checks first; a "no" opens the rewrite box, three "yes" open the ending,
//   which starts as the original; the changes are shown word by word as they are typed, with the edit size
//   measured as the server measures it (core/stories.py: words, Levenshtein distance, words kept in order);
// - Likert and pairwise: every question answered.
(function () {
  const task = window.crowdsetTask;
  const {form, items} = task;
  const progress = document.getElementById("cf-progress");
  const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu;
  const words = text => (text.match(WORD) || []).map(word => word.toLowerCase());
  const percent = share => Math.round(share * 100) + "%";
  const same = (a, b) => a.length === b.length && a.every((word, i) => word === b[i]);

  function writeRefusal(item, text) {
    const found = words(text), low = +item.dataset.min, high = +item.dataset.max;
    if (!found.length) return "";
    if (found.length < low) return `has ${found.length} word${found.length === 1 ? "" : "s"}; write at least ${low}`;
    if (found.length > high) return `has ${found.length} words; keep it to ${high}, one sentence`;
    if (same(found, words(item.dataset.initial))) return "is the original second sentence; change what happens";
    if (item.dataset.shown && same(found, words(item.dataset.shown))) {
      return "is the counterfactual you were shown; rewrite it so that it meets every condition";
    }
    return "";
  }
  function checkWrite(input, item) {
    const problem = writeRefusal(item, input.value);
    const note = document.getElementById(input.id + "-note");
    const count = words(input.value).length;
    note.textContent = problem ? "The new sentence " + problem + "." : (count ? count + " words" : "");
    input.setAttribute("aria-invalid", problem ? "true" : "false");
    input.closest(".text-line").classList.toggle("invalid", Boolean(problem));
    return count > 0 && !problem;
  }

  // Levenshtein distance over words, and the longest common subsequence (the words kept in order).
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
    return {distance: previous[after.length], originalWords: before.length, kept: common[after.length]};
  }
  function describe(size) {
    const changed = size.originalWords ? size.distance / size.originalWords : 0;
    const kept = size.originalWords ? size.kept / size.originalWords : 1;
    return {changed, kept, text: `${size.distance} word edit${size.distance === 1 ? "" : "s"} for ${size.originalWords} words (${percent(changed)} changed, ${percent(kept)} kept)`};
  }
  // The diff shown: words as written, marked removed (struck through) or added (underlined).
  function renderDiff(target, before, after) {
    const n = before.length, m = after.length;
    const table = Array.from({length: n + 1}, () => new Array(m + 1).fill(0));
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        table[i][j] = before[i] === after[j] ? table[i + 1][j + 1] + 1 : Math.max(table[i + 1][j], table[i][j + 1]);
      }
    }
    // Walk the table into operations, then show each run of changes as the words removed, then the words
    // added (as the organizer's page does, core.stories.word_diff).
    const ops = [];
    let i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && before[i] === after[j]) { ops.push(["same", before[i]]); i++; j++; }
      else if (j < m && (i === n || table[i][j + 1] >= table[i + 1][j])) { ops.push(["added", after[j]]); j++; }
      else { ops.push(["removed", before[i]]); i++; }
    }
    target.textContent = "";
    const put = (kind, words) => {
      if (!words.length) return;
      const node = document.createElement(kind === "same" ? "span" : kind === "removed" ? "del" : "ins");
      if (kind !== "same") node.className = "diff-" + kind;
      node.textContent = words.join(" ");
      target.append(node, " ");
    };
    let k = 0;
    while (k < ops.length) {
      if (ops[k][0] === "same") {
        const run = [];
        while (k < ops.length && ops[k][0] === "same") run.push(ops[k++][1]);
        put("same", run);
        continue;
      }
      const removed = [], added = [];
      while (k < ops.length && ops[k][0] !== "same") (ops[k][0] === "removed" ? removed : added).push(ops[k++][1]);
      put("removed", removed);
      put("added", added);
    }
  }
  function checkEdit(item) {
    const ends = [...item.querySelectorAll(".story-end")];
    const original = ends.map(end => end.dataset.original).join(" ");
    const edited = ends.map(end => end.value).join(" ");
    renderDiff(document.getElementById("diff-" + item.dataset.item), original.split(/\s+/).filter(Boolean),
               edited.split(/\s+/).filter(Boolean));
    const size = describe(editSize(words(original), words(edited)));
    const maxChanged = item.dataset.maxChanged === "" ? null : +item.dataset.maxChanged;
    const minKept = item.dataset.minKept === "" ? null : +item.dataset.minKept;
    let problem = "";
    if (ends.some(end => !end.value.trim())) problem = "Every sentence needs text: edit it, do not delete it.";
    else if (size.changed === 0) problem = "The ending is unchanged; if it still fits the new sentence, condition 3 does not hold: answer no there and rewrite the sentence.";
    else if (maxChanged !== null && size.changed > maxChanged + 1e-9) problem = `This ending is rewritten, not edited: ${size.text}; change at most ${percent(maxChanged)} of the words and keep what still fits the new event.`;
    else if (minKept !== null && size.kept < minKept - 1e-9) problem = `This ending keeps too little of the original: ${size.text}; keep at least ${percent(minKept)} of its words.`;
    const note = document.getElementById("size-" + item.dataset.item);
    note.textContent = problem || "Your edit: " + size.text + ".";
    item.querySelector(".story-ending").classList.toggle("invalid", Boolean(problem));
    ends.forEach(end => end.setAttribute("aria-invalid", problem ? "true" : "false"));
    return !problem;
  }

  function itemDone(item) {
    if (item.classList.contains("story-edit-item")) {
      const answers = [...item.querySelectorAll(".condition-check")].map(group => {
        const picked = group.querySelector("input:checked");
        return picked ? picked.value : null;
      });
      const rewrite = item.querySelector(".story-rewrite"), ending = item.querySelector(".story-ending");
      const answered = answers.every(Boolean), failed = answers.includes("no");
      rewrite.hidden = !(answered && failed);
      ending.hidden = !(answered && !failed);
      if (!answered) return false;
      return failed ? checkWrite(rewrite.querySelector("input"), item) : checkEdit(item);
    }
    if (item.classList.contains("story-item")) {
      const written = checkWrite(item.querySelector(".story-write"), item);
      return written && [...item.querySelectorAll(".story-condition")].every(box => box.checked);
    }
    const groups = new Set([...item.querySelectorAll("input[type=radio]")].map(input => input.name));
    return [...groups].every(name => item.querySelector(`input[name="${name}"]:checked`));
  }
  function refresh() {
    let done = 0;
    items.forEach(item => {
      const finished = itemDone(item);
      item.classList.toggle("done", finished);
      if (finished) done += 1;
    });
    progress.textContent = done + " of " + items.length + " done";
    task.ready(done === items.length);
  }
  form.addEventListener("input", () => { refresh(); task.saveSoon(); });
  form.addEventListener("change", () => { refresh(); task.saveSoon(); });
  task.onCurrent(() => {});
  task.restore();
  refresh();
  task.setCurrent(0, {focus: false});
})();
