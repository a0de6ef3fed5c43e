// A triad test (designs/schemes/triad_test.py, Potato's triad_test): the triads one at a time ("Triad 3 of 13 ·
// 2 answered"), their order and each triad's places shuffled per participant, item and scheme with Potato's hash
// (FNV-1a) and generator (mulberry32), as its triad-design.js shuffles them, so a participant meets the same
// sequence in both; a choice moves on to the next triad not yet answered; 1, 2 and 3 choose while the test has
// the focus; Previous and Next revisit any triad.
(() => {
  const ADVANCE_MS = 280;
  function fnv1a(text) {
    let hash = 0x811c9dc5;
    for (const byte of new TextEncoder().encode(text)) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
    return hash >>> 0;
  }
  function mulberry32(seed) {
    let a = seed >>> 0;
    return () => {
      a = (a + 0x6D2B79F5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t = ((t + Math.imul(t ^ (t >>> 7), t | 61)) >>> 0) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  function shuffle(values, draw) {
    for (let i = values.length - 1; i > 0; i--) {
      const j = Math.floor(draw() * (i + 1));
      [values[i], values[j]] = [values[j], values[i]];
    }
    return values;
  }
  // Who is answering (the HIT's body is one page for all its workers): the task page's annotator, else MTurk's
  // workerId, which its question page is given in the address.
  const participant = () => (document.getElementById("cf-task") || {dataset: {}}).dataset.participant
    || new URLSearchParams(location.search).get("workerId") || "";

  function setUp(test) {
    const list = test.querySelector(".tt-triads");
    const triads = [...list.children];
    const draw = mulberry32(fnv1a(`${participant()}\x1f${test.dataset.item}\x1f${test.dataset.schema}`));
    const order = shuffle(triads.map((_, place) => place), draw);
    for (const place of order) {
      const triad = triads[place];
      const labels = [...triad.querySelectorAll(".tt-option")];
      const positions = shuffle([0, 1, 2], draw);
      positions.forEach((position, shown) => {
        labels[position].querySelector(".tt-key").textContent = String(shown + 1);
        labels[position].parentElement.append(labels[position]);
      });
      triad.querySelector(".tt-shown").value = JSON.stringify(positions.map(p => labels[p].querySelector("input").value));
      list.append(triad);
    }
    test.querySelector(".tt-order").value = JSON.stringify(order);
    const state = {test, triads: [...list.children], current: 0, timer: null};
    const open = from => {
      for (let step = 1; step <= state.triads.length; step++) {
        const place = (from + step) % state.triads.length;
        if (!state.triads[place].querySelector("input:checked")) return place;
      }
      return -1;
    };
    function show(place, focus) {
      clearTimeout(state.timer);
      state.current = place;
      const count = state.triads.length;
      const answered = state.triads.filter(triad => triad.querySelector("input:checked")).length;
      state.triads.forEach((triad, at) => { triad.hidden = at !== place; });
      test.querySelector(".tt-progress").textContent = `Triad ${place + 1} of ${count} · ${answered} answered`;
      test.querySelector(".tt-prev").disabled = place === 0;
      test.querySelector(".tt-next").disabled = place === count - 1;
      test.querySelector(".tt-done").textContent = answered === count ? `All ${count} triads answered.` : "";
      if (focus) (state.triads[place].querySelector("input:checked") || state.triads[place].querySelector("input")).focus();
    }
    test.querySelector(".tt-nav").hidden = false;
    test.querySelector(".tt-prev").addEventListener("click", () => show(state.current - 1));
    test.querySelector(".tt-next").addEventListener("click", () => show(state.current + 1));
    test.addEventListener("change", event => {
      if (!event.target.matches(".tt-option input")) return;
      show(state.current);
      const next = open(state.current);
      if (next >= 0) state.timer = setTimeout(() => show(next, test.contains(document.activeElement)), ADVANCE_MS);
    });
    test.addEventListener("keydown", event => {
      if (event.ctrlKey || event.metaKey || event.altKey || !/^[123]$/.test(event.key)) return;
      event.preventDefault();
      event.stopPropagation();  // the test's keys, not the page's
      const input = state.triads[state.current].querySelectorAll(".tt-option input")[Number(event.key) - 1];
      input.checked = true;
      input.focus();
      input.dispatchEvent(new Event("change", {bubbles: true}));
    });
    show(Math.max(0, state.triads.findIndex(triad => !triad.querySelector("input:checked"))));
  }
  const all = () => document.querySelectorAll(".triad-test:not([data-ready])");
  const ready = () => all().forEach(test => { test.dataset.ready = "1"; setUp(test); });
  document.addEventListener("DOMContentLoaded", ready);
  ready();
})();
