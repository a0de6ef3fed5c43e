// A free list (designs/schemes/free_list.py, Potato's free_list): the annotator types items one at a time; Enter or
// Add puts the item at the end of the list, × deletes one and "Undo delete" puts it back where it was. The list is
// kept as JSON in the scheme's field, as Potato's page keeps it: the items, when each came (ms from the first focus
// on the box, or from Start when the list is timed), the time spent and whether the time ran out. A duplicate (case
// and spaces aside) is refused unless the scheme allows it; the box closes at the most items. A timed list opens
// with its Start button and locks when its time is up; its clock runs only while its item is shown. Each change is
// told to design.js as a change of the field.
(() => {
  const same = text => text.trim().replace(/\s+/g, " ").toLowerCase();
  const clock = ms => {
    const seconds = Math.max(0, Math.ceil(ms / 1000));
    return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
  };
  function setup(box) {
    const field = box.querySelector("input[type=hidden]");
    const entry = box.querySelector(".free-list-box");
    const add = box.querySelector(".free-list-add");
    const list = box.querySelector(".free-list-items");
    const status = box.querySelector(".free-list-status");
    const count = box.querySelector(".free-list-count");
    const undo = box.querySelector(".free-list-undo");
    const start = box.querySelector(".free-list-start");
    const left = box.querySelector(".free-list-clock");
    const least = Number(box.dataset.least) || 0;
    const most = Number(box.dataset.most) || 0;
    const limit = (Number(box.dataset.seconds) || 0) * 1000;
    let items = [], timings = [], elapsedBefore = 0, since = null, started = false, timeUp = false, ticker = null;
    const undone = [];
    try {  // an answer the page starts with (a model's suggestion, a draft)
      const kept = JSON.parse(field.value || "null");
      if (kept && Array.isArray(kept.items)) {
        items = kept.items.map(String);
        timings = Array.isArray(kept.timings_ms) ? kept.timings_ms.slice(0, items.length) : [];
        elapsedBefore = Number(kept.elapsed_ms) || 0;
        timeUp = Boolean(kept.time_up);
        started = Boolean(items.length || elapsedBefore || timeUp);
      }
    } catch (error) { /* an unreadable draft starts empty */ }
    while (timings.length < items.length) timings.push(null);
    const elapsed = () => elapsedBefore + (since === null ? 0 : performance.now() - since);
    const locked = () => timeUp || (limit > 0 && !started);
    const shown = () => box.offsetParent !== null;
    function run() {
      if (since !== null || timeUp) return;
      started = true;
      since = performance.now();
      if (limit && !ticker) ticker = setInterval(tick, 250);
    }
    function pause() {
      if (since !== null) elapsedBefore = elapsed();
      since = null;
    }
    function tick() {
      if (!shown()) { pause(); return; }  // another item is shown: this list's time waits
      if (since === null) since = performance.now();
      const rest = limit - elapsed();
      left.textContent = clock(rest);
      left.closest(".free-list-timed").classList.toggle("low", rest <= 10000);
      if (rest > 0) return;
      clearInterval(ticker);
      since = null;
      elapsedBefore = limit;
      timeUp = true;
      status.textContent = "Time is up. Your list has been saved.";
      save();
    }
    function save() {
      const keep = items.length || timeUp;
      field.value = keep ? JSON.stringify({items, timings_ms: timings, elapsed_ms: Math.round(elapsed()),
                                           ...(limit ? {time_up: timeUp} : {})}) : "";
      draw();  // before design.js hears of it: whether the list can be sent is part of the change
      field.dispatchEvent(new Event("change", {bubbles: true}));
    }
    function draw() {
      const lock = locked();
      list.replaceChildren(...items.map((text, place) => {
        const row = document.createElement("li");
        const words = document.createElement("span");
        words.className = "free-list-text";
        words.textContent = text;
        const remove = document.createElement("button");
        remove.type = "button";
        remove.className = "free-list-delete";
        remove.textContent = "×";
        remove.title = "Delete";
        remove.disabled = lock;
        remove.setAttribute("aria-label", `Delete “${text}”`);
        remove.addEventListener("click", () => {
          if (locked()) return;
          undone.push({place, text, time: timings[place]});
          items.splice(place, 1);
          timings.splice(place, 1);
          status.textContent = `Removed “${text}”.`;
          save();
          undo.focus();
        });
        row.append(words, remove);
        return row;
      }));
      list.hidden = !items.length;
      const full = most && items.length >= most;
      entry.disabled = add.disabled = Boolean(full || lock);
      entry.placeholder = full ? "The list is full" : entry.dataset.placeholder;
      undo.hidden = !undone.length || lock;
      if (start) start.hidden = started || timeUp;
      if (left && timeUp) left.textContent = clock(0);
      let said = `${items.length} ${items.length === 1 ? "item" : "items"}`;
      if (least && most) said += ` (${least} to ${most})`;
      else if (least) said += ` (at least ${least})`;
      else if (most) said += ` (at most ${most})`;
      count.textContent = said;
      // Too few items keep the item open, as a required answer left empty would, until the time is up: only a
      // required list, as Potato's page holds only a required scheme to what its widget says is missing.
      const scheme = box.closest(".scheme");
      if (scheme.dataset.required === "true" && items.length && items.length < least && !timeUp) scheme.dataset.invalid = "true";
      else delete scheme.dataset.invalid;
    }
    function put() {
      const text = entry.value.trim().replace(/\s+/g, " ");
      if (!text || locked()) return;
      if (most && items.length >= most) {
        status.textContent = `The list is full (${most} items).`;
        return;
      }
      if (!box.dataset.duplicates && items.some(item => same(item) === same(text))) {
        status.textContent = `“${text}” is already on your list.`;
        entry.select();
        return;
      }
      run();
      items.push(text);
      timings.push(Math.round(elapsed()));
      entry.value = "";
      status.textContent = `Added “${text}”.`;
      save();
      if (!entry.disabled) entry.focus();
    }
    entry.dataset.placeholder = entry.placeholder;
    entry.addEventListener("focus", () => { if (!limit) run(); });
    entry.addEventListener("keydown", event => {
      if (event.key !== "Enter" || event.isComposing) return;
      event.preventDefault();
      event.stopPropagation();  // Enter adds the item; it does not move on or submit
      put();
    });
    add.addEventListener("click", put);
    undo.addEventListener("click", () => {
      const last = undone.pop();
      if (!last || locked()) return;
      const at = Math.min(last.place, items.length);
      items.splice(at, 0, last.text);
      timings.splice(at, 0, last.time);
      status.textContent = `Restored “${last.text}”.`;
      save();
      if (!entry.disabled) entry.focus();
    });
    if (start) {
      start.addEventListener("click", () => {
        run();
        draw();
        tick();
        entry.focus();
      });
      left.textContent = clock(timeUp ? 0 : limit - elapsedBefore);
      if (started && !timeUp) run();
    }
    draw();
  }
  const begin = () => document.querySelectorAll(".free-list").forEach(setup);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", begin);
  else begin();
})();
