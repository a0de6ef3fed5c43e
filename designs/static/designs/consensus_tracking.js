// A discussion's turns tagged with acts (designs/schemes/consensus_tracking.py): a turn's "Refers to" is asked
// only while its act is one that refers (linked), and left empty otherwise; while a referring act lacks its turn
// the widget says so as Potato names it ("turn #2 still needs the turn it refers to"), and a required one stays
// open (Potato's page holds only a required scheme to what its widget says is missing).
(() => {
  function paint(list) {
    const linked = JSON.parse(list.dataset.linked || "[]");
    const dangling = [];
    list.querySelectorAll(".turn-card").forEach(card => {
      const picked = card.querySelector(".turn-choices input:checked");
      const refers = Boolean(picked) && linked.includes(picked.value);
      const ref = card.querySelector(".turn-ref");
      const select = ref.querySelector("select");
      ref.hidden = !refers;
      if (!refers && select.value) {
        select.value = "";
        select.dispatchEvent(new Event("change", {bubbles: true}));
      }
      if (refers && !select.value) dangling.push(card.querySelector(".turn-name").textContent.split(" ")[0]);
    });
    const scheme = list.closest(".scheme") || list.closest("fieldset");
    const status = list.parentElement.querySelector(".turn-acts-status");
    if (dangling.length) {
      if (scheme.dataset.required === "true") scheme.dataset.invalid = "true";
      status.textContent = `${dangling.length === 1 ? "turn" : "turns"} ${dangling.join(", ")} still needs the turn it refers to`;
    } else {
      delete scheme.dataset.invalid;
      status.textContent = "";
    }
  }
  const all = () => document.querySelectorAll(".turn-acts");
  // Caught on the way down, so the page's count of answered items (design.js, on the form) reads it painted.
  document.addEventListener("change", event => {
    const list = event.target.closest && event.target.closest(".turn-acts");
    if (list) paint(list);
  }, true);
  document.addEventListener("DOMContentLoaded", () => all().forEach(paint));
  all().forEach(paint);
})();
