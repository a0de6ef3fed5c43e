// The screening test: sending it with sentences unanswered asks first (they count as wrong).
(function () {
  const form = document.getElementById("cf-task");
  const dialog = document.getElementById("confirm-unanswered");
  const confirmed = document.getElementById("confirmed");
  const items = [...form.querySelectorAll(".task-item")];
  const open = () => items.filter(item => !item.querySelector("input:checked"));
  // Capture: this runs before the shared submit handler, which would forget the draft.
  form.addEventListener("submit", event => {
    const left = open().length;
    if (!left || confirmed.value === "1") return;
    event.preventDefault();
    event.stopImmediatePropagation();
    document.getElementById("confirm-count").textContent =
      left + " of " + items.length + " sentence" + (left > 1 ? "s are" : " is") + " not answered.";
    document.getElementById("confirm-send").textContent = "Submit with " + left + " unanswered";
    dialog.showModal();
  }, true);
  document.getElementById("confirm-back").addEventListener("click", () => {
    dialog.close();
    const first = open()[0];
    if (first) window.crowdsetTask.setCurrent(items.indexOf(first), {focus: true, scroll: true});
  });
  document.getElementById("confirm-send").addEventListener("click", () => {
    confirmed.value = "1";
    dialog.close();
    form.requestSubmit(document.getElementById("cf-submit"));
  });
})();
