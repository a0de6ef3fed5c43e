// A grid whose rows cascade (designs/schemes/multirate.py's `cascade`, Potato's process_reward first_error): the
// last column picked on a row is picked on every later row and the first column on every earlier one, each change
// told to design.js as the annotator's own would be.
(() => {
  document.addEventListener("change", event => {
    const input = event.target;
    const table = input.closest ? input.closest("table[data-cascade]") : null;
    if (!table || input.type !== "radio" || !input.checked || table.dataset.busy) return;
    const row = input.closest("tr");
    const picks = [...row.querySelectorAll("input[type=radio]")];
    if (picks.indexOf(input) !== picks.length - 1) return;
    const rows = [...table.tBodies[0].rows];
    const at = rows.indexOf(row);
    table.dataset.busy = "1";  // the changes below cascade no further
    rows.forEach((other, place) => {
      if (place === at) return;
      const boxes = other.querySelectorAll("input[type=radio]");
      const pick = place < at ? boxes[0] : boxes[boxes.length - 1];
      if (!pick.checked) {
        pick.checked = true;
        pick.dispatchEvent(new Event("change", {bubbles: true}));
      }
    });
    delete table.dataset.busy;
  });
})();
