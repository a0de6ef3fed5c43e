// A conversation tree's folds (designs.dialogue: items.dialogues collapsed_depth, as on Potato's page): a node's
// toggle opens or folds its replies, and a reply shows only while every node above it is open; Expand all and
// Collapse all set every toggle of the tree. Put only on pages whose trees fold (designs.task_type).
(() => {
  document.addEventListener("click", event => {
    const fold = event.target.closest && event.target.closest(".turn-fold, .turn-fold-all");
    if (!fold) return;
    const thread = fold.closest(".dialogue").querySelector(".turns");
    const all = fold.classList.contains("turn-fold-all");
    for (const toggle of all ? thread.querySelectorAll(".turn-fold") : [fold]) {
      const open = all ? fold.dataset.open === "true" : toggle.getAttribute("aria-expanded") !== "true";
      toggle.setAttribute("aria-expanded", String(open));
      toggle.firstElementChild.textContent = open ? "▼" : "▶";
    }
    const above = [];
    for (const turn of thread.querySelectorAll(".turn")) {
      const depth = Number(turn.dataset.depth || 0);
      while (above.length && above[above.length - 1].depth >= depth) above.pop();
      turn.hidden = above.some(node => !node.open);
      const own = turn.querySelector(".turn-fold");
      above.push({depth, open: !own || own.getAttribute("aria-expanded") === "true"});
    }
  });
})();
