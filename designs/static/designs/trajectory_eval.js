// A trajectory's steps judged (designs/schemes/trajectory_eval.py, Potato's trajectory_eval): a step's error type,
// severity and rationale are asked only while it is judged and not correct, and cleared when it is called correct
// or its judgement is taken back (so no hidden severity takes anything off, as in Potato); each step says its
// judgement; the score line says the most less each wrong step's severity, "not final" while a wrong step has none.
(() => {
  function paint(trajectory) {
    const weights = JSON.parse(trajectory.dataset.weights || "{}");
    let taken = 0, unscored = 0;
    trajectory.querySelectorAll(".traj-step").forEach(step => {
      const judged = step.querySelector(".traj-correctness input:checked");
      const wrong = Boolean(judged) && judged.value !== "correct";
      const error = step.querySelector(".traj-error");
      error.hidden = !wrong;
      if (!wrong) {
        error.querySelectorAll("input:checked").forEach(input => { input.checked = false; });
        error.querySelector("select").value = "";
        error.querySelector("textarea").value = "";
      }
      step.querySelector(".traj-status").textContent = judged ? judged.value.replace("_", " ") : "";
      const severity = error.querySelector("input:checked");
      if (wrong && severity) taken += weights[severity.value] || 0;
      else if (wrong) unscored += 1;
    });
    const value = trajectory.querySelector(".traj-score-value");
    if (!value) return;
    value.textContent = String(Math.max(0, Number(trajectory.dataset.max) - taken));
    trajectory.querySelector(".traj-score-note").textContent = unscored
      ? ` — not final: ${unscored} step${unscored === 1 ? "" : "s"} marked wrong with no severity yet` : "";
  }
  const all = () => document.querySelectorAll(".trajectory");
  // Caught on the way down, so the page's count of answered items (design.js, on the form) reads it painted.
  document.addEventListener("change", event => {
    const trajectory = event.target.closest && event.target.closest(".trajectory");
    if (trajectory) paint(trajectory);
  }, true);
  document.addEventListener("DOMContentLoaded", () => all().forEach(paint));
  all().forEach(paint);
})();
