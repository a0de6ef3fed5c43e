// A trajectory corrected (designs/schemes/trajectory_edit.py, Potato's trajectory_edit): as a box is typed in, the
// words and characters changed (Levenshtein, words split at spaces, as Potato counts them), the words taken out and
// put in (a longest common subsequence of words, as Potato's diff), "✎ edited", and the run's count of edited boxes
// and characters changed; Reset puts a box back as it was (it stays typed in, as in Potato). A box typed in is
// marked in its "-touched" field, and the scheme's own field counts them (the item is answered once there is one).
// An edit without the reason the scheme asks for is marked, and keeps the item open when the scheme is required
// (Potato's page holds only a required scheme to what its widget says is missing).
(() => {
  const words = text => text.trim().split(/\s+/).filter(Boolean);
  function distance(a, b) {  // over characters of two texts, or two lists of words
    let previous = Array.from({length: b.length + 1}, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      const current = [i];
      for (let j = 1; j <= b.length; j++) {
        current.push(a[i - 1] === b[j - 1] ? previous[j - 1] : 1 + Math.min(previous[j], current[j - 1], previous[j - 1]));
      }
      previous = current;
    }
    return previous[b.length];
  }
  function common(a, b) {
    const table = Array.from({length: a.length + 1}, () => new Array(b.length + 1).fill(0));
    for (let i = 1; i <= a.length; i++) {
      for (let j = 1; j <= b.length; j++) {
        table[i][j] = a[i - 1] === b[j - 1] ? table[i - 1][j - 1] + 1 : Math.max(table[i - 1][j], table[i][j - 1]);
      }
    }
    const found = [];
    for (let i = a.length, j = b.length; i > 0 && j > 0;) {
      if (a[i - 1] === b[j - 1]) { found.unshift(a[i - 1]); i--; j--; } else if (table[i - 1][j] > table[i][j - 1]) i--; else j--;
    }
    return found;
  }
  function changes(before, after) {  // the words kept, taken out and put in, in order
    const shared = common(before, after), parts = [];
    let i = 0, j = 0, k = 0;
    const put = (kind, word) => parts.push([kind, word]);
    while (i < before.length || j < after.length) {
      if (k < shared.length && i < before.length && j < after.length && before[i] === shared[k] && after[j] === shared[k]) {
        put("same", shared[k]); i++; j++; k++;
      } else if (k < shared.length && j < after.length && after[j] === shared[k]) { put("out", before[i]); i++; }
      else if (k < shared.length && i < before.length && before[i] === shared[k]) { put("in", after[j]); j++; }
      else {
        if (i < before.length) { put("out", before[i]); i++; }
        if (j < after.length) { put("in", after[j]); j++; }
      }
    }
    return parts;
  }
  function setup(scheme) {
    const count = scheme.querySelector(".traj-edit-count");
    const boxes = [...scheme.querySelectorAll(".traj-edit-box")];
    const state = new Map();
    function measure(box) {
      const area = box.querySelector("textarea"), original = box.querySelector(".traj-edit-was").textContent;
      const edited = area.value !== original, chars = distance(original, area.value);
      state.set(box, {edited, chars});
      const stat = (name, value) => { const found = box.querySelector(name); if (found) found.textContent = value; };
      stat(".traj-edit-words", distance(words(original), words(area.value)));
      stat(".traj-edit-chars", chars);
      box.querySelector(".traj-edit-flag").textContent = edited ? "✎ edited" : "";
      box.classList.toggle("edited", edited);
      const diff = box.querySelector(".traj-edit-diff");
      if (diff) {
        diff.hidden = !edited;
        diff.querySelector(".traj-edit-changes").replaceChildren(...changes(words(original), words(area.value)).map(([kind, word]) => {
          const part = document.createElement(kind === "out" ? "del" : kind === "in" ? "ins" : "span");
          part.textContent = word + " ";
          return part;
        }));
      }
    }
    function total() {
      const touched = boxes.filter(box => box.querySelector("[name$='-touched']").value);
      const edited = touched.filter(box => state.get(box)?.edited);
      scheme.querySelector(".traj-edit-edited").textContent = edited.length;
      scheme.querySelector(".traj-edit-total").textContent = edited.reduce((sum, box) => sum + state.get(box).chars, 0);
      count.value = touched.length ? String(touched.length) : "";
      const unexplained = [...new Set(edited.filter(box => box.dataset.reason && !box.querySelector("[name$='-reason']").value.trim())
        .map(box => box.closest(".traj-edit-step").getAttribute("aria-label")))];
      const holder = scheme.closest(".scheme");
      if (unexplained.length && holder.dataset.required === "true") holder.dataset.invalid = "true";
      else delete holder.dataset.invalid;
      boxes.forEach(box => {
        const reason = box.querySelector("[name$='-reason']");
        if (reason) reason.setAttribute("aria-invalid", String(Boolean(state.get(box)?.edited && !reason.value.trim())));
      });
    }
    function typed(box) {
      box.querySelector("[name$='-touched']").value = "1";
      measure(box);
      total();
    }
    // Before design.js counts the item's answers (it listens on the form): so the capture phase, on the scheme.
    scheme.addEventListener("input", event => {
      const box = event.target.closest(".traj-edit-box");
      if (box && (event.target.matches("textarea") || event.target.matches("[name$='-reason']"))) typed(box);
    }, true);
    boxes.forEach(box => {
      const reset = box.querySelector(".traj-edit-reset");
      if (reset) reset.addEventListener("click", () => {
        box.querySelector("textarea").value = box.querySelector(".traj-edit-was").textContent;
        typed(box);
        count.dispatchEvent(new Event("change", {bubbles: true}));
      });
      measure(box);  // a draft's correction is measured as it comes back
    });
    total();
  }
  const begin = () => document.querySelectorAll(".trajectory-edit").forEach(setup);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", begin);
  else begin();
})();
