// A change reviewed (designs/schemes/code_review.py, Potato's code_review): "+ Add comment" opens the next comment
// card (its controls are in the page from the start, hidden and disabled until then, so a draft fills them like
// any other), × removes one and the later comments move up a card, so the comments stay in the order they were
// added, as Potato's list keeps them. A card the page starts with a value in (a draft, a suggestion) is open.
(() => {
  const parts = card => [...card.querySelectorAll("select, input, textarea, button")];
  const written = card => [...card.querySelectorAll("input, textarea")].some(input => input.value.trim());
  function setup(box) {
    const cards = [...box.querySelectorAll(".review-card")];
    const add = box.querySelector(".review-add");
    const status = box.querySelector(".review-status");
    const open = card => { card.hidden = false; parts(card).forEach(part => { part.disabled = false; }); };
    const close = card => {
      card.hidden = true;
      parts(card).forEach(part => {
        part.disabled = true;
        if (part.tagName === "SELECT") part.selectedIndex = 0;
        else if (part.tagName !== "BUTTON") part.value = "";
      });
    };
    const shown = () => cards.filter(card => !card.hidden);
    const told = () => {
      add.disabled = shown().length === cards.length;
      if (add.disabled) status.textContent = `A review holds at most ${cards.length} comments.`;
      box.querySelector("[name$='-verdict']").dispatchEvent(new Event("change", {bubbles: true}));
    };
    // The last card with something in it, and every card before it, open (a draft keeps the order).
    const last = cards.map(written).lastIndexOf(true);
    cards.forEach((card, place) => { if (place <= last) open(card); });
    add.addEventListener("click", () => {
      const card = cards.find(found => found.hidden);
      if (!card) return;
      open(card);
      status.textContent = `Comment ${cards.indexOf(card) + 1} added.`;
      card.querySelector("select").focus();
      told();
    });
    cards.forEach((card, place) => card.querySelector(".review-delete").addEventListener("click", () => {
      const open_ = shown();
      for (let at = place; at < open_.length - 1; at++) {  // the later comments move up a card
        const from = parts(open_[at + 1]), to = parts(open_[at]);
        to.forEach((part, index) => { if (part.tagName !== "BUTTON") part.value = from[index].value; });
      }
      close(open_[open_.length - 1]);
      status.textContent = `Comment ${place + 1} removed.`;
      add.focus();
      told();
    }));
  }
  const begin = () => document.querySelectorAll(".code-review").forEach(setup);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", begin);
  else begin();
})();
