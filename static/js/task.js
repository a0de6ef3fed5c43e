// What every task page shares (in-house, MTurk and Prolific alike): the item the worker is on, drafts that
// survive a reload, the time left, and submitting once. The page's own script (design.js, or the screening
// test's answers.js) builds on window.crowdsetTask.
window.crowdsetTask = (function () {
  const form = document.getElementById("cf-task");
  const items = [...form.querySelectorAll(".task-item")];
  const preview = () => form.dataset.preview === "true";

  // localStorage throws where it is blocked (private windows, third-party frames such as MTurk's):
  // then drafts live in memory only, and the page says so.
  const store = (function () {
    try {
      const probe = "crowdset-probe";
      window.localStorage.setItem(probe, probe);
      window.localStorage.removeItem(probe);
      return {kept: true, get: k => window.localStorage.getItem(k), set: (k, v) => window.localStorage.setItem(k, v),
              remove: k => window.localStorage.removeItem(k)};
    } catch (error) {
      const memory = new Map();
      return {kept: false, get: k => (memory.has(k) ? memory.get(k) : null), set: (k, v) => memory.set(k, v),
              remove: k => memory.delete(k)};
    }
  })();

  // --- the current item: the one last clicked, tapped or focused; keys act on it ---------------------
  let current = 0;
  const listeners = [];
  function setCurrent(n, how) {
    how = how || {};
    if (!items.length) return;
    current = Math.max(0, Math.min(items.length - 1, n));
    items.forEach((item, i) => item.classList.toggle("current", i === current));
    if (how.focus) items[current].focus({preventScroll: true});
    if (how.scroll) items[current].scrollIntoView({block: "center", behavior: "instant"});
    listeners.forEach(listener => listener(current));
  }
  function follow(event) {
    const item = event.target.closest && event.target.closest(".task-item");
    if (item && items.indexOf(item) !== current) setCurrent(items.indexOf(item));
  }
  form.addEventListener("pointerdown", follow);
  form.addEventListener("focusin", follow);

  // Keys are for the page, not for typing: a text field or a control with its own keys keeps them.
  function typing(event) {
    const target = event.target;
    return event.ctrlKey || event.metaKey || event.altKey || target.isContentEditable ||
      target.tagName === "TEXTAREA" || target.tagName === "SELECT" ||
      (target.tagName === "INPUT" && !["radio", "checkbox", "button", "submit"].includes(target.type));
  }
  // Enter submits only when focus is not on something Enter already means something to.
  function enterIsFree(event) {
    const target = event.target;
    return !(target.closest && target.closest("button, a, summary, textarea, input[type=text]"));
  }

  // --- drafts ---------------------------------------------------------------------------------------
  const params = new URLSearchParams(location.search);
  // On MTurk the draft is kept per HIT, so answers given in preview are there after accepting.
  const localKey = "crowdset-draft:" + (params.get("hitId") ? "mturk-" + params.get("hitId") : form.dataset.localKey);
  const saved = document.getElementById("task-saved");
  const csrf = form.querySelector("input[name=csrfmiddlewaretoken]");
  function fields() {
    const found = {};
    for (const [name, value] of new FormData(form)) {
      if (!name.startsWith("_") && name !== "csrfmiddlewaretoken" && name !== "assignmentId") found[name] = value;
    }
    return found;
  }
  function fill(draft) {
    for (const [name, value] of Object.entries(draft)) {
      if (name.startsWith("_")) continue;
      form.querySelectorAll(`[name="${CSS.escape(name)}"]`).forEach(input => {
        if (input.type === "radio") input.checked = input.value === value;
        else if (input.type === "checkbox") input.checked = true;  // only ticked boxes are in a draft
        else input.value = value;
      });
    }
  }
  // The newer of the server's draft and this browser's: the server's follows the worker to another device,
  // this browser's holds what was given while the server could not be reached.
  function restore() {
    const element = document.getElementById("task-draft");
    const server = element ? JSON.parse(element.textContent) || {} : {};
    let local = null;
    try { local = JSON.parse(store.get(localKey) || "null"); } catch (error) { local = null; }
    // Compared by when the answers were given in the browser (the server keeps that time with its copy), not
    // by when the server stored them: a save that arrived late does not outrank later answers.
    const serverAt = Number(server._draft_at || 0);
    const draft = local && local.fields && (!Object.keys(server).length || local.at > serverAt) ? local.fields : server;
    fill(draft);
    return Object.keys(draft).length > 0;
  }
  let timer = null, sending = false, again = false, changedAt = 0;
  function saveSoon() {
    if (preview() && !params.get("hitId")) return;
    changedAt = Date.now();
    store.set(localKey, JSON.stringify({at: changedAt, fields: fields()}));
    if (!form.dataset.draftUrl) {
      saved.textContent = store.kept ? "Answers kept in this browser" : "";
      return;
    }
    clearTimeout(timer);
    timer = setTimeout(() => { timer = null; send(); }, 500);
  }
  async function send() {
    if (sending) { again = true; return; }
    sending = true;
    saved.textContent = "Saving…";
    try {
      const response = await fetch(form.dataset.draftUrl, {
        method: "POST", credentials: "same-origin", body: new URLSearchParams({...fields(), _draft_at: changedAt}),
        headers: {"X-CSRFToken": csrf ? csrf.value : "", "Accept": "application/json"}});
      if (response.status === 409) { location.reload(); return; }  // the HIT is no longer the worker's: say why
      if (!response.ok) throw new Error(String(response.status));
      const body = await response.json();
      saved.textContent = "Saved " + new Date(body.saved).toLocaleTimeString([], {hour: "2-digit", minute: "2-digit"});
    } catch (error) {
      saved.textContent = store.kept ? "Not saved to the server (offline?); kept in this browser"
        : "Not saved: the connection is down. Keep this page open.";
    } finally {
      sending = false;
      if (again) { again = false; send(); }
    }
  }
  function forget() { clearTimeout(timer); timer = null; store.remove(localKey); }
  // Leaving with a save still waiting (a reload, a closed tab): send it anyway, the browser finishes it.
  window.addEventListener("pagehide", () => {
    if (timer === null || !form.dataset.draftUrl) return;
    clearTimeout(timer);
    timer = null;
    fetch(form.dataset.draftUrl, {method: "POST", credentials: "same-origin", keepalive: true,
      body: new URLSearchParams({...fields(), _draft_at: changedAt}),
      headers: {"X-CSRFToken": csrf ? csrf.value : "", "Accept": "application/json"}});
  });

  // --- time left ------------------------------------------------------------------------------------
  const clock = document.getElementById("task-time");
  const warning = document.getElementById("task-warning");
  const extend = document.getElementById("task-extend");
  let deadline = form.dataset.deadline ? Date.parse(form.dataset.deadline) : null;
  const skew = form.dataset.now ? Date.parse(form.dataset.now) - Date.now() : 0;  // the server's clock rules
  const duration = Number(form.dataset.duration || 0) * 1000;
  const warnAt = Math.min(120000, duration / 4);
  function two(n) { return String(n).padStart(2, "0"); }
  function tick() {
    if (!deadline) return;
    const left = deadline - (Date.now() + skew);
    const seconds = Math.max(0, Math.ceil(left / 1000));
    clock.hidden = false;
    clock.textContent = "Time left " + Math.floor(seconds / 60) + ":" + two(seconds % 60);
    const low = left <= warnAt;
    clock.classList.toggle("warning", low);
    if (low && warning.hidden && left > 0) {
      warning.hidden = false;
      document.getElementById("task-warning-text").textContent =
        "Less than " + Math.max(1, Math.ceil(left / 60000)) + " minute" + (left > 60000 ? "s" : "") +
        " left: submit soon, or the HIT goes back for someone else.";
      if (form.dataset.extendUrl) extend.hidden = false;
    }
    // Past the deadline the server has given the place back; reloading shows the page that says so.
    if (left <= -1000 && form.dataset.draftUrl) { location.reload(); return; }
    setTimeout(tick, 1000 - ((Date.now() + skew) % 1000));
  }
  extend.addEventListener("click", async () => {
    extend.disabled = true;
    try {
      const response = await fetch(form.dataset.extendUrl, {method: "POST", credentials: "same-origin",
        headers: {"X-CSRFToken": csrf ? csrf.value : "", "Accept": "application/json"}});
      const body = await response.json();
      if (!response.ok) { document.getElementById("task-warning-text").textContent = body.error; return; }
      deadline = Date.parse(body.deadline);
      warning.hidden = true;
      if (!body.more) form.dataset.extendUrl = "";
    } catch (error) {
      document.getElementById("task-warning-text").textContent = "Could not ask for more time: the connection is down.";
    } finally {
      extend.disabled = false;
      extend.hidden = true;
    }
  });

  // --- submitting -----------------------------------------------------------------------------------
  const submits = [...form.querySelectorAll("button[type=submit]")];
  function ready(ok) { submits.forEach(button => { button.disabled = preview() || !ok; }); }
  const started = performance.now();
  form.addEventListener("submit", event => {
    if (submits[0].disabled) { event.preventDefault(); return; }
    const elapsed = document.getElementById("cf-elapsed");
    if (elapsed) elapsed.value = Math.round(performance.now() - started);
    forget();
    // Disabled after the browser has read the submitter (a disabled button sends no name=value).
    setTimeout(() => submits.forEach(button => { button.disabled = true; }), 0);
  });

  // The same tab coming back from the cache: the page's state is what it was, say it again.
  window.addEventListener("pageshow", event => { if (event.persisted) listeners.forEach(l => l(current)); });
  if (preview()) document.getElementById("cf-note").textContent = form.dataset.previewNote || "Preview: accept the HIT to submit your answers.";
  if (!store.kept && !form.dataset.draftUrl) saved.textContent = "This browser keeps no drafts: finish before you leave.";

  // Instructions stay folded for a worker who folded them.
  document.querySelectorAll("details[id$=instructions]").forEach(details => {
    if (store.get(details.id) === "closed") details.open = false;
    details.addEventListener("toggle", () => store.set(details.id, details.open ? "open" : "closed"));
  });

  tick();
  return {form, items, preview, get current() { return current; }, setCurrent, onCurrent: l => listeners.push(l),
          typing, enterIsFree, restore, fill, saveSoon, ready, submits};
})();
