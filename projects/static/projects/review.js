// Tick or untick every assignment of the review table at once.
(function () {
  const all = document.getElementById("select-all");
  if (!all) return;
  all.addEventListener("change", () => {
    document.querySelectorAll("#review-form input[name=assignments]").forEach(box => { box.checked = all.checked; });
  });
})();
