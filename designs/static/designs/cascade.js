// A grid whose rows cascade, each change told to design.js as the annotator's own would be. Two rules, by the
// table's data-cascade:
// - "1" (designs/schemes/multirate.py's `cascade`, Potato's process_reward first_error): the last column picked on
//   a row is picked on every later row and the first column on every earlier one;
// - "switch" (designs/schemes/price_list.py's `single_switch`, Potato's price list): the last column picked on a
//   row is picked on every later row, the first column on every earlier row, so the rows switch once.
(() => {
  document.addEventListener("change", event => {
    const input = event.target;
    const table = input.closest ? input.closest("table[data-cascade]") : null;
    if (!table || input.type !== "radio" || !input.checked || table.dataset.busy) return;
    const row = input.closest("tr");
    const picks = [...row.querySelectorAll("input[type=radio]")];
    const last = picks.indexOf(input) === picks.length - 1;
    const first = picks.indexOf(input) === 0;
    const switching = table.dataset.cascade === "switch";
    if (!last && !(switching && first)) return;
    const rows = [...table.tBodies[0].rows];
    const at = rows.indexOf(row);
    table.dataset.busy = "1";  // the changes below cascade no further
    rows.forEach((other, place) => {
      if (place === at || (switching && (last ? place < at : place > at))) return;
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
