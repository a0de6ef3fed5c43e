// The ranking widget (designs/schemes/ranking.py), on the pages that ask a ranking: the rows moved with their
// buttons; the order is the answer once moved or kept. design.js calls it with what it shares.
window.crowdsetRanking = function ({form, changed}) {
  function rankings(root) {
    const list = root.querySelector(".ranking-list");
    const field = root.querySelector(".ranking-field");
    const write = () => {
      field.value = JSON.stringify([...list.children].map(row => row.dataset.label));
      changed(field);
    };
    root.querySelectorAll(".ranking-row").forEach(row => {
      row.querySelector(".rank-up").addEventListener("click", event => {
        if (row.previousElementSibling) list.insertBefore(row, row.previousElementSibling);
        write();
        event.currentTarget.focus();
      });
      row.querySelector(".rank-down").addEventListener("click", event => {
        if (row.nextElementSibling) list.insertBefore(row.nextElementSibling, row);
        write();
        event.currentTarget.focus();
      });
    });
    root.querySelector(".rank-keep").addEventListener("click", write);
    return {
      restore() {  // a draft's order back on the page
        let order = [];
        try { order = JSON.parse(field.value || "[]"); } catch (error) { return; }
        order.forEach(label => {
          const row = [...list.children].find(r => r.dataset.label === label);
          if (row) list.appendChild(row);
        });
      },
    };
  }
  return [...form.querySelectorAll(".scheme-box.ranking")].map(rankings);
};
