// While a job of the page runs, ask the server every two seconds how things stand and reload the
// page when they change, so progress shows without the organizer reloading (and a reload loses nothing).
(function () {
  const live = document.getElementById("live");
  if (!live || live.dataset.busy !== "true") return;
  let signature = null;
  // As the page writes counts: 100,000.
  const count = (n) => Number(n).toLocaleString("en-US");
  // Once the organizer clicks a link or sends a form, the page is on its way out: a reload now would
  // cancel where they asked to go.
  let leaving = false;
  window.addEventListener("beforeunload", () => { leaving = true; });
  async function poll() {
    if (leaving) return;
    try {
      const response = await fetch(live.dataset.poll, {headers: {"Accept": "application/json"}});
      if (!response.ok) return;
      const status = await response.json();
      if (leaving) return;
      if (signature !== null && status.signature !== signature) { location.reload(); return; }
      signature = status.signature;
      const running = status.jobs.filter(job => job.state === "running" || job.state === "queued");
      live.textContent = running.map(job => "Job " + job.id + " (" + job.kind + "): " + job.state +
        (job.progress ? ", " + count(job.progress[0]) + " of " + count(job.progress[1]) : "")).join("; ");
      if (!status.busy) { location.reload(); return; }
    } catch (error) {
      live.textContent = "Lost touch with the server; reload the page to see how the work stands.";
      return;
    }
    setTimeout(poll, 2000);
  }
  poll();
})();
