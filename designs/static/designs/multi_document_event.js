// A multi_document_event scheme (designs/widgets/multi_document_event.html): the batch's events, shared by everyone
// who works on it and kept on the site (designs/event_views.py), listed with how many documents each holds; an event
// opened to name it, fill its slots, cite the document's words for a slot and put the document in it or take it out.
// The scheme's answer is the events the document belongs to as the worker left it (a JSON list of ids in its one
// named input, as Potato's page keeps it), written after each change the worker makes, not when the page opens.
(function () {
  "use strict";
  const form = document.getElementById("cf-task");
  const csrf = form && form.querySelector("input[name=csrfmiddlewaretoken]");
  const assignment = form && /assignments\/(\d+)\//.exec(form.dataset.draftUrl || "");
  // Every read or change of the events is numbered as it is sent, page-wide: an answer that comes back after a
  // later one was shown (a first read slower than a change), or that was sent before a change still on its way (it
  // would undo a box just ticked until the change's answer comes), is older than what the page shows: dropped.
  let sent = 0;
  let changeSent = 0;

  function make(tag, attrs, text) {
    const node = document.createElement(tag);
    Object.entries(attrs || {}).forEach(([key, value]) => node.setAttribute(key, value));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function widget(box) {
    const scheme = box.closest(".scheme");
    const item = box.closest(".task-item");
    const doc = box.dataset.doc;
    const slots = JSON.parse(box.dataset.slots || "[]");
    const status = box.querySelector(".mde-status");
    const list = box.querySelector(".mde-events");
    const create = box.querySelector(".mde-new");
    const confirm = box.querySelector(".mde-confirm");
    const editor = box.querySelector(".mde-editor");
    const title = box.querySelector(".mde-title");
    const member = box.querySelector(".mde-in");
    const slotsBox = box.querySelector(".mde-slots");
    const remove = box.querySelector(".mde-delete");
    const answer = box.querySelector(".mde-answer");
    const url = assignment ? `/work/events/${assignment[1]}/${encodeURIComponent(scheme.dataset.scheme)}/` : "";
    let events = [];
    let open = null;  // the id of the event shown in the editor
    let queue = Promise.resolve();  // changes go one at a time, each with the version the last one left

    const say = text => { status.textContent = text; };
    const current = () => events.find(event => event.id === open);
    const documentText = () => (item.querySelector(".design-text") || {}).textContent || "";

    const inEvents = () => events.filter(event => event.members.includes(doc)).map(event => event.id);
    function mirror(said) {
      const mine = inEvents();
      const next = mine.length ? JSON.stringify(mine) : (answer.value || said ? "[]" : "");
      if (next === answer.value) return;
      answer.value = next;
      answer.dispatchEvent(new Event("change", {bubbles: true}));
    }

    let shownNumber = 0;
    function take(data, changed, number) {
      if (number < shownNumber || number < changeSent) return;
      shownNumber = number;
      events = data.events || [];
      if (open && !current()) open = null;
      create.hidden = !data.allow_create;
      if (changed) mirror();
      draw();
    }

    // The other documents' widgets on the page show the events as this one last read or changed them.
    const tell = (data, number) => document.dispatchEvent(new CustomEvent("mde-events",
      {detail: {url, from: box, data, number}}));

    async function load() {
      const number = ++sent;
      const response = await fetch(url, {credentials: "same-origin", headers: {"Accept": "application/json"}});
      if (!response.ok) { say("The events could not be read; reload the page."); return; }
      const data = await response.json();
      take(data, false, number);
      tell(data, number);
    }

    function change(fields, done) {
      const number = ++sent;  // numbered when the worker acts, not when its turn in the queue comes
      changeSent = number;
      queue = queue.then(async () => {
        const event = current();
        const body = new URLSearchParams({...fields, doc, ...(event ? {version: String(event.version)} : {})});
        let response;
        try {
          response = await fetch(url, {method: "POST", credentials: "same-origin", body,
            headers: {"X-CSRFToken": csrf ? csrf.value : "", "Accept": "application/json"}});
        } catch (error) { say("Not saved: the site cannot be reached. Try again."); unsent(); return; }
        const data = await response.json().catch(() => ({}));
        if (!response.ok) unsent();
        if (data.events) { take(data, true, number); tell(data, number); }
        say(response.ok ? (done || "") : (data.error || "Not saved. Try again."));
      });
      return queue;
    }

    function draw() {
      // The list is drawn anew from what the site said last: the event the worker is on keeps the focus (a read that
      // came back just then took the button from under a key press).
      const focused = list.contains(document.activeElement) ? document.activeElement.dataset.event : null;
      list.replaceChildren(...events.map(event => {
        const count = event.members.length;
        const here = event.members.includes(doc);
        const row = make("li", {"class": "mde-event" + (event.id === open ? " open" : "") + (here ? " here" : "")});
        const button = make("button", {"type": "button", "class": "mde-open", "aria-expanded": String(event.id === open),
          "data-event": event.id}, event.title || "Untitled event");
        button.addEventListener("click", () => { open = open === event.id ? null : event.id; draw(); if (open) title.focus(); });
        row.append(button, make("span", {"class": "mde-meta"},
          `${count} document${count === 1 ? "" : "s"}${here ? ", this one" : ""}${event.seeded ? ", given" : ""}`));
        return row;
      }));
      if (!events.length) list.append(make("li", {"class": "mde-none"}, "No events yet."));
      if (focused) list.querySelector(`[data-event="${CSS.escape(focused)}"]`)?.focus();
      // The document's events as they stand (others may have put it in some) are the worker's answer once they
      // say so: "in no event", as a span scheme's "nothing to mark", or the events it is in.
      const mine = inEvents();
      confirm.hidden = answer.value === (mine.length ? JSON.stringify(mine) : "[]");
      confirm.textContent = mine.length ? "It is in " + (mine.length === 1 ? "this event" : `these ${mine.length} events`)
        : "It is in no event";
      const event = current();
      editor.hidden = !event;
      if (!event) return;
      editor.setAttribute("aria-label", `Event: ${event.title || "untitled"}`);
      if (document.activeElement !== title) title.value = event.title;
      member.checked = event.members.includes(doc);
      remove.hidden = !event.mine;
      // The slots are made once for the event opened, then brought up to date in place: a box taken out of the page
      // while the worker types in it would send what it held so far as a change, and lose the focus and the caret.
      if (slotsBox.dataset.event !== event.id) {
        slotsBox.replaceChildren(...slots.map(slot => drawSlot(event, slot)));
        slotsBox.dataset.event = event.id;
      }
      slots.forEach((slot, place) => {
        const part = slotsBox.children[place];
        const value = part.querySelector(".mde-value");
        if (value !== document.activeElement) value.value = event.slot_values[slot.name] || "";
        part.querySelector(".mde-citations").replaceChildren(...citations(event, slot));
      });
    }

    function drawSlot(event, slot) {
      const part = make("div", {"class": "mde-slot", "role": "group", "aria-label": slot.name});
      const id = `${answer.id}-${slot.name}`;
      const label = make("label", {"for": id}, slot.name);
      const input = make("input", {"type": "text", "id": id, "class": "mde-value", "placeholder": slot.description || ""});
      input.value = event.slot_values[slot.name] || "";
      input.addEventListener("change", () => once(input) && change({action: "slot", event: event.id, slot: slot.name,
        value: input.value}, `${slot.name} saved.`));
      const quote = make("input", {"type": "text", "id": `${id}-quote`, "class": "mde-quote"});
      const cite = make("button", {"type": "button", "class": "secondary small"}, "Cite");
      cite.setAttribute("aria-label", `Cite these words for ${slot.name}`);
      cite.addEventListener("click", () => citeFor(event, slot, quote));
      const cites = make("ul", {"class": "mde-citations"});
      part.append(label, input, make("label", {"for": `${id}-quote`, "class": "mde-quote-label"},
        "Words to cite (or select them in the text)"), quote, cite, cites);
      return part;
    }

    // Enter sends a box's change at once; the browser sends it again when the box loses the focus: once is enough
    // (unless it was not saved: then the same words may be sent again).
    const unsent = () => box.querySelectorAll("[data-sent]").forEach(input => { delete input.dataset.sent; });
    function once(input) {
      const key = `${open}\u0000${input.value}`;
      if (input.dataset.sent === key) return false;
      input.dataset.sent = key;
      return true;
    }

    function citations(event, slot) {
      return event.evidence.flatMap((citation, index) => {
        if (citation.slot_name !== slot.name) return [];
        const row = make("li", {}, `“${citation.quoted_text}” (${citation.doc_id}) `);
        const drop = make("button", {"type": "button", "class": "secondary small"}, "Remove");
        drop.setAttribute("aria-label", `Remove the citation “${citation.quoted_text}”`);
        drop.addEventListener("click", () => change({action: "uncite", event: event.id, index: String(index)},
          "Citation removed."));
        row.append(drop);
        return [row];
      });
    }

    function citeFor(event, slot, quote) {
      // The words typed, else those selected in this item's text: found in the text, the nearest to the selection.
      const text = documentText();
      const selection = window.getSelection();
      const inText = selection && !selection.isCollapsed && item.querySelector(".design-text")
        && item.querySelector(".design-text").contains(selection.anchorNode);
      const words = quote.value.trim() || (inText ? selection.toString().trim() : "");
      if (!words) { say(`Type the words to cite for ${slot.name}, or select them in the text.`); return; }
      const start = text.indexOf(words);
      if (start < 0) { say(`“${words}” is not in this document's text.`); return; }
      quote.value = "";
      change({action: "cite", event: event.id, slot: slot.name, quote: words, start: String(start)},
        `“${words}” cited for ${slot.name}.`);
    }

    if (!url) {  // a preview, or a page MTurk shows: no HIT of the site's to keep events for
      say("The events are kept on the site while people work: this preview cannot make them.");
      box.querySelectorAll("button, input").forEach(control => { control.disabled = true; });
      return;
    }
    create.addEventListener("click", () => change({action: "create"}, "A new event: name it.").then(() => {
      const mine = events.filter(event => event.mine);  // the newest of the worker's is the one just made
      if (mine.length) open = mine[mine.length - 1].id;
      draw();
      title.focus();
    }));
    confirm.addEventListener("click", () => {
      mirror(true);
      say(inEvents().length ? "Answered: the events this document is in." : "Answered: this document is in no event.");
      draw();
      create.focus();
    });
    title.addEventListener("change", () => once(title) && change({action: "title", event: open, title: title.value},
      "Name saved."));
    member.addEventListener("change", () => change({action: "member", event: open, attach: member.checked ? "1" : "0"},
      member.checked ? "This document is in the event." : "This document is out of the event."));
    remove.addEventListener("click", () => {
      if (!window.confirm("Delete this event for everyone? This cannot be undone.")) return;
      change({action: "delete", event: open}, "Event deleted.");
    });
    // Enter in one of the widget's boxes saves that box, and does not send the whole HIT.
    box.addEventListener("keydown", event => {
      if (event.key !== "Enter" || event.target.tagName !== "INPUT" || event.target.type !== "text") return;
      event.preventDefault();
      event.stopPropagation();
      if (event.target.classList.contains("mde-quote")) event.target.nextElementSibling.click();
      else event.target.dispatchEvent(new Event("change", {bubbles: true}));
    });
    document.addEventListener("mde-events", event => {
      if (event.detail.url === url && event.detail.from !== box) take(event.detail.data, false, event.detail.number);
    });
    // Read afresh whenever the worker comes to this document (others may have changed the events meanwhile), and
    // at the start by the document the worker is on, which tells the others.
    new MutationObserver(() => {
      const now = item.classList.contains("current");
      if (now && !box.dataset.current) load();
      box.dataset.current = now ? "1" : "";
    }).observe(item, {attributes: true, attributeFilter: ["class"]});
    box.dataset.current = item.classList.contains("current") ? "1" : "";
    if (box.dataset.current || !document.querySelector(".task-item.current")) load();
  }

  document.querySelectorAll(".mde").forEach(widget);
})();
