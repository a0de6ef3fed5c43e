// The screening test page: keys on the sentence the worker is on, progress, drafts, and the answer changes
// kept with the submission. A page with other answers than yes/no names its keys in a "task-keys" JSON script
// ({key: value}).
(function () {
  const task = window.crowdsetTask;
  const {form, items} = task;
  const progress = document.getElementById("cf-progress");
  const changesField = document.getElementById("cf-changes");
  const partial = form.dataset.partial === "true";  // the screening test may be sent with gaps (they count as wrong)
  const keyScript = document.getElementById("task-keys");
  const keys = keyScript ? JSON.parse(keyScript.textContent) : {y: "1", "1": "1", n: "0", "2": "0"};
  const started = performance.now();
  const changes = [];
  const answered = () => items.filter(item => item.querySelector("input:checked")).length;
  function refresh() {
    const done = answered();
    progress.textContent = done + " of " + items.length + " answered";
    items.forEach(item => item.classList.toggle("done", !!item.querySelector("input:checked")));
    task.ready(partial || done === items.length);
  }
  function answer(value) {
    const input = items[task.current].querySelector(`input[value="${value}"]`);
    input.checked = true;
    input.dispatchEvent(new Event("change", {bubbles: true}));
    if (task.current < items.length - 1) task.setCurrent(task.current + 1, {focus: true, scroll: true});
    else if (!task.submits[0].disabled) task.submits[0].focus();
  }
  form.addEventListener("change", event => {
    const item = event.target.closest(".task-item");
    if (!item) return;
    changes.push({item: item.dataset.item, value: event.target.value, ms: Math.round(performance.now() - started)});
    if (changesField) changesField.value = JSON.stringify(changes);
    refresh();
    task.saveSoon();
  });
  document.addEventListener("keydown", event => {
    if (task.typing(event)) return;
    const key = event.key;
    const go = n => { task.setCurrent(n, {focus: true, scroll: true}); event.preventDefault(); };
    if (key === "j" || key === "ArrowDown") go(task.current + 1);
    else if (key === "k" || key === "ArrowUp") go(task.current - 1);
    else if (Object.hasOwn(keys, key)) { answer(keys[key]); event.preventDefault(); }
    else if (key === "Enter" && task.enterIsFree(event) && !task.submits[0].disabled) {
      event.preventDefault();
      form.requestSubmit(task.submits[0]);
    }
  });
  task.onCurrent(refresh);
  task.restore();
  const first = items.findIndex(item => !item.querySelector("input:checked"));
  // The frame takes the keys at once (on MTurk a worker should not have to click into it first).
  window.focus();
  task.setCurrent(first < 0 ? 0 : first, {focus: true, scroll: first > 0});
})();
