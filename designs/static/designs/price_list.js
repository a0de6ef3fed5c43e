// A price list's status line (designs/schemes/price_list.py), as Potato's says it: how many decisions are made and,
// when all are, where the annotator switches from option A to option B.
(() => {
  function say(status) {
    const table = status.closest("fieldset").querySelector("table.price-list");
    const rows = [...table.tBodies[0].rows];
    const choices = rows.map(row => (row.querySelector("input:checked") || {}).value || null);
    const made = choices.filter(Boolean).length;
    let text = `${made} of ${rows.length} decisions made.`;
    const switches = choices.slice(1).filter((choice, place) => choice !== choices[place]).length;
    if (made === rows.length) {
      const firstB = choices.indexOf("B");
      if (firstB < 0) text += " You chose Option A in every row.";
      else if (switches === 1 && choices[0] === "A") text += ` You switch to Option B at decision ${firstB + 1}.`;
      else if (switches === 0) text += " You chose Option B in every row.";
    }
    status.textContent = text;
  }
  const all = () => document.querySelectorAll(".price-status");
  document.addEventListener("change", event => {
    const box = event.target.closest && event.target.closest("fieldset");
    const status = box && box.querySelector(".price-status");
    if (status) say(status);
  });
  document.addEventListener("DOMContentLoaded", () => all().forEach(say));
  all().forEach(say);
})();
