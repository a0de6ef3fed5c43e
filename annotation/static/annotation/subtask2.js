// The Subtask-2 span page: a double check per sentence (with a reason for a flag), then the span widget;
// keys on the sentence the worker is on, progress, drafts.
(function () {
  const task = window.crowdsetTask;
  const {form} = task;
  task.restore();  // before the widgets start: they read the restored spans from their fields
  const items = task.items.map(element => ({element}));
  function verdict(entry) { const c = entry.element.querySelector("input[type=radio]:checked"); return c ? c.value : null; }
  function done(entry) { const v = verdict(entry); return v === "0" || (v === "1" && entry.widget.complete()); }
  function refresh() {
    let count = 0;
    items.forEach(entry => {
      if (!entry.widget) return;
      const v = verdict(entry), ok = done(entry);
      count += ok;
      entry.element.classList.toggle("done", ok);
      entry.element.querySelector(".sp-work").hidden = v !== "1";
      entry.element.querySelector(".sp-flagged-text").hidden = v === "1";
      entry.element.querySelector(".sp-why").hidden = v !== "0";
      // A flagged sentence sends no spans, a marked one no reason: the fields are disabled, not just hidden.
      entry.element.querySelectorAll(".sp-work input").forEach(input => { input.disabled = v !== "1"; });
      entry.element.querySelector(".sp-why textarea").disabled = v !== "0";
    });
    document.getElementById("cf-progress").textContent = count + " of " + items.length + " done";
    task.ready(count === items.length);
  }
  items.forEach(entry => {
    entry.widget = spanWidget(entry.element.querySelector(".sp-spans"), {onChange: () => { refresh(); task.saveSoon(); }});
  });
  form.addEventListener("change", () => { refresh(); task.saveSoon(); });
  form.addEventListener("input", event => { if (event.target.tagName === "TEXTAREA") task.saveSoon(); });
  function check(value) {
    const entry = items[task.current];
    const input = entry.element.querySelector(`input[type=radio][value="${value}"]`);
    input.checked = true;
    input.dispatchEvent(new Event("change", {bubbles: true}));
    // Straight on to the words (a yes) or to the next sentence (a flag).
    if (value === "1") entry.widget.focus();
    else if (task.current < items.length - 1) task.setCurrent(task.current + 1, {focus: true, scroll: true});
  }
  document.addEventListener("keydown", event => {
    if (task.typing(event)) return;
    const key = event.key;
    if (key === "j") { task.setCurrent(task.current + 1, {focus: true, scroll: true}); event.preventDefault(); }
    else if (key === "k") { task.setCurrent(task.current - 1, {focus: true, scroll: true}); event.preventDefault(); }
    else if (key === "y") { check("1"); event.preventDefault(); }
    else if (key === "n") { check("0"); event.preventDefault(); }
    else if (key === "Enter" && task.enterIsFree(event) && !task.submits[0].disabled) {
      // As on the labeling page: Enter sends the HIT once every sentence is done.
      event.preventDefault();
      form.requestSubmit(task.submits[0]);
    }
  });
  task.onCurrent(refresh);
  window.focus();
  task.setCurrent(0, {focus: true});
})();
