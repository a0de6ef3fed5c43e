// MTurk appends assignmentId, hitId, workerId and turkSubmitTo; in preview the id is ASSIGNMENT_ID_NOT_AVAILABLE.
// The answers go only to an https address of a host the page names (data-submit-hosts, from the settings):
// a link that swaps in another turkSubmitTo (javascript:, http:, any other site) cannot take them.
(function () {
  const params = new URLSearchParams(location.search);
  const assignment = params.get("assignmentId");
  const form = document.getElementById("cf-task");
  document.getElementById("assignmentId").value = assignment || "";
  const allowed = (form.dataset.submitHosts || "").split(/\s+/).filter(Boolean);
  let refused = "";
  const submitTo = params.get("turkSubmitTo");
  if (submitTo) {
    let url = null;
    try { url = new URL(submitTo); } catch (error) { url = null; }
    if (url && url.protocol === "https:" && allowed.includes(url.hostname) && !url.username && !url.password) {
      form.action = url.origin + "/mturk/externalSubmit";
    } else {
      refused = "This page was opened with a submit address it does not know, so it cannot send your answers. " +
        "Open the HIT from MTurk again.";
    }
  }
  const preview = !assignment || assignment === "ASSIGNMENT_ID_NOT_AVAILABLE" || !!refused;
  form.dataset.preview = preview ? "true" : "false";
  if (refused) {
    form.dataset.refused = "true";
    window.addEventListener("DOMContentLoaded", () => { document.getElementById("cf-note").textContent = refused; });
    form.addEventListener("submit", event => event.preventDefault());
  }
})();
