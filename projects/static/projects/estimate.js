// A batch form's cost, estimated by the server as the numbers change (provider fees included): the form that
// names the estimate's URL (the labeling batch's, the span batch's).
(function () {
  const form = document.querySelector("form[data-estimate]");
  const out = document.getElementById("estimate");
  const who = document.getElementById("filters");
  if (!form || !out) return;
  const names = ["items_per_hit", "assignments_per_hit", "reward", "provider", "gold_count", "gold_rate", "gold_upload",
                 "min_approval_rate", "min_approved_hits", "qualification"];
  let pending = null;
  const count = (n) => Number(n).toLocaleString("en-US");  // 1,000 HITs, as the page writes counts
  async function update() {
    const params = new URLSearchParams({items: form.dataset.items});
    for (const name of names) {
      const field = form.elements.namedItem(name);
      if (field) params.set(name, field.value);
    }
    if (!params.get("gold_upload")) { params.set("gold_count", "0"); params.set("gold_rate", "0"); }
    const masters = form.elements.namedItem("masters");
    if (masters && masters.checked) params.set("masters", "on");
    try {
      const url = form.dataset.estimate;
      const response = await fetch(url + (url.includes("?") ? "&" : "?") + params);
      const found = await response.json();
      out.textContent = response.ok
        ? count(found.hits) + " HITs, " + count(found.assignments) + " assignments: " + found.rewards + " in rewards + " +
          found.fees + " in provider fees = " + found.total
        : found.error;
      if (who) who.textContent = response.ok && found.filters ? "Who may work: " + found.filters.join("; ") + "." : "";
    } catch (error) {
      out.textContent = "The estimate could not be fetched; it is checked again when you submit.";
    }
  }
  form.addEventListener("input", () => { clearTimeout(pending); pending = setTimeout(update, 250); });
  update();
})();
