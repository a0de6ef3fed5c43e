// The ranking widget (designs/schemes/ranking.py), on the pages that ask a ranking: the rows moved with their
// buttons (and, with buckets, each sorted into one by its picker); the order is the answer once moved, picked or
// kept. design.js calls it with what it shares.
window.crowdsetRanking = function ({form, changed}) {
  function rankings(root) {
    const list = root.querySelector(".ranking-list");
    const field = root.querySelector(".ranking-field");
    const bucketOf = row => row.querySelector(".rank-bucket");
    const write = () => {
      const rows = [...list.children];
      if (rows.length && bucketOf(rows[0])) {  // {bucket: [things in order]}, the things put in one
        const sorted = {};
        rows.filter(row => bucketOf(row).value).forEach(row => {
          (sorted[bucketOf(row).value] = sorted[bucketOf(row).value] || []).push(row.dataset.label);
        });
        field.value = Object.keys(sorted).length ? JSON.stringify(sorted) : "";
      } else {
        field.value = JSON.stringify(rows.map(row => row.dataset.label));
      }
      changed(field);
    };
    root.querySelectorAll(".rank-bucket").forEach(picker => picker.addEventListener("change", write));
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
      restore() {  // a draft's (or a suggestion's) order back on the page
        let order = [];
        try { order = JSON.parse(field.value || "[]"); } catch (error) { return; }
        const placed = Array.isArray(order) ? [["", order]] : Object.entries(order);
        placed.forEach(([bucket, labels]) => labels.forEach(label => {
          const row = [...list.children].find(r => r.dataset.label === label);
          if (!row) return;
          list.appendChild(row);
          if (bucket && bucketOf(row)) bucketOf(row).value = bucket;
        }));
      },
    };
  }
  return [...form.querySelectorAll(".scheme-box.ranking")].map(rankings);
};
