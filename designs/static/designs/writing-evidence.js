// Writing-behaviour evidence for the reviewer, on the task pages of a design naming the writing-evidence component
// (designs/evidence.py reads it): keys, pastes and pasted characters per box, when the box was first and last
// changed, and how often the page lost focus.
(function () {
  const form = window.crowdsetTask.form;
  const evidenceField = document.getElementById("design-evidence");
  if (!evidenceField) return;
  const started = performance.now();
  const evidence = {lines: {}, blurs: 0};
  function seen(target) {
    if (!target.classList || !target.classList.contains("text-input")) return null;
    const line = evidence.lines[target.name] || (evidence.lines[target.name] = {keys: 0, pastes: 0, pasted: 0});
    const now = Math.round(performance.now() - started);
    if (line.first === undefined) line.first = now;
    line.last = now;
    return line;
  }
  const keep = () => { evidenceField.value = JSON.stringify(evidence); };
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
    line.pastes += 1;
    line.pasted += event.clipboardData ? event.clipboardData.getData("text").length : 0;
    keep();
  });
  form.addEventListener("input", event => { if (seen(event.target)) keep(); });
  window.addEventListener("blur", () => { evidence.blurs += 1; keep(); });
})();
