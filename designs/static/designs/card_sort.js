// A card sort (designs/schemes/card_sort.py, Potato's card_sort). A card is picked up (a click, Enter or Space on
// it) and put in a group (a click on the group, Enter on it, or the group's number pressed; 0 is the unsorted
// cards); a number pressed on a card sends that card straight there, and Escape puts a picked-up card down, as on
// Potato's page. A card may also be dragged. An open sort adds groups by name and removes them with × (their cards
// go back among the unsorted). The sort is kept as Potato's JSON in the scheme's field: every group in page order,
// each with its cards in the order they went in. A draft's sort (its groups too) is laid out again.
(() => {
  function setup(box) {
    const field = box.querySelector("input[type=hidden]");
    const status = box.querySelector(".sort-status");
    const groups = box.querySelector(".sort-groups");
    const adder = box.querySelector(".sort-new");
    const zones = () => [...box.querySelectorAll(".sort-zone")];  // the unsorted cards first, then each group
    const held = () => box.querySelector(".sort-card[aria-pressed=true]");
    const say = text => { status.textContent = text; };
    const cardOf = text => [...box.querySelectorAll(".sort-card")].find(found => found.dataset.card === text);
    const where = zone => zone.dataset.group || "the unsorted cards";
    function number() {  // each zone's number key (the first nine groups), and each group's count
      zones().forEach((zone, place) => {
        const count = zone.querySelector(".sort-count");
        if (count) count.textContent = zone.querySelectorAll(".sort-card").length;
        const key = zone.querySelector(".sort-key");
        if (key) { key.textContent = place; key.hidden = place > 9; }
        if (place < 10) zone.setAttribute("aria-keyshortcuts", String(place));
        else zone.removeAttribute("aria-keyshortcuts");
      });
    }
    function save() {
      const sort = {};
      zones().slice(1).forEach(zone => {
        sort[zone.dataset.group] = [...zone.querySelectorAll(".sort-card")].map(card => card.dataset.card);
      });
      field.value = Object.keys(sort).length ? JSON.stringify(sort) : "";  // no group left: nothing answered
      number();
      field.dispatchEvent(new Event("change", {bubbles: true}));
    }
    function putDown() {
      const card = held();
      if (card) card.setAttribute("aria-pressed", "false");
      box.classList.remove("holding");
      return card;
    }
    function pickUp(card) {
      putDown();
      card.setAttribute("aria-pressed", "true");
      box.classList.add("holding");
      say(`Picked up ${card.dataset.card}: choose a group.`);
    }
    function toggle(card) {  // a card picked up, or put down if it was held
      if (card.getAttribute("aria-pressed") !== "true") pickUp(card);
      else { putDown(); say(`Put ${card.dataset.card} down.`); }
    }
    function moveTo(card, zone, quiet) {
      putDown();
      if (card.closest(".sort-zone") === zone) return;
      zone.querySelector(".sort-cards").append(card.closest("li"));
      if (!quiet) {
        card.focus();
        say(`Moved ${card.dataset.card} to ${where(zone)}.`);
        save();
      }
    }
    function addGroup(name, quiet) {
      const section = document.createElement("section");
      section.className = "sort-zone";
      section.dataset.group = name;
      section.tabIndex = 0;
      section.setAttribute("aria-label", `${name}: Enter puts the picked-up card here`);
      section.innerHTML = '<p class="sort-head"><span class="sort-key" aria-hidden="true"></span> <span class="sort-name"></span> <span class="sort-count" aria-hidden="true">0</span><button type="button" class="sort-remove secondary small">×</button></p><ul class="sort-cards"></ul>';
      section.querySelector(".sort-name").textContent = name;
      section.querySelector(".sort-remove").setAttribute("aria-label", `Remove the group ${name}`);
      groups.append(section);
      bind(section);
      if (!quiet) { save(); say(`Added the group ${name}.`); }
      return section;
    }
    function bind(zone) {
      zone.addEventListener("click", event => {
        if (event.target.closest(".sort-remove")) {
          const source = zones()[0].querySelector(".sort-cards");
          zone.querySelectorAll(".sort-cards > li").forEach(item => source.append(item));
          putDown();
          zone.remove();
          save();
          say(`Removed the group ${zone.dataset.group}; its cards are unsorted again.`);
          (adder ? adder.querySelector("input") : box).focus();
          return;
        }
        if (event.target.closest(".sort-card") || event.detail === 0) return;  // a card's own click; Enter's
        if (held()) moveTo(held(), zone);
      });
      zone.addEventListener("keydown", event => {
        if (event.target !== zone || (event.key !== "Enter" && event.key !== " ")) return;
        event.preventDefault();
        event.stopPropagation();  // Enter puts the card down here: it does not send the page
        if (held()) moveTo(held(), zone);
        else say("Pick a card up first.");
      });
      zone.addEventListener("dragover", event => event.preventDefault());
      zone.addEventListener("drop", event => {
        event.preventDefault();
        const card = cardOf(event.dataTransfer.getData("text/plain"));
        if (card) moveTo(card, zone);
      });
    }
    box.querySelectorAll(".sort-card").forEach(card => {
      card.draggable = true;
      card.addEventListener("dragstart", event => event.dataTransfer.setData("text/plain", card.dataset.card));
      card.addEventListener("click", event => {
        if (event.detail === 0) return;  // Enter's click: the key did it
        toggle(card);
      });
      card.addEventListener("keydown", event => {
        const zone = /^[0-9]$/.test(event.key) ? zones()[Number(event.key)] : null;
        if (event.key === "Enter" || event.key === " ") {
          toggle(card);
        } else if (event.key === "Escape" && held()) {
          say(`Put ${putDown().dataset.card} down.`);
        } else if (zone) {
          moveTo(card, zone);
        } else return;
        event.preventDefault();
        event.stopPropagation();  // the card's own keys: not the page's (a number, Enter)
      });
    });
    zones().forEach(bind);
    if (adder) {
      const name = adder.querySelector("input");
      const add = () => {
        const typed = name.value.trim();
        if (!typed) say("Type a name for the new group first.");
        else if (zones().some(zone => zone.dataset.group === typed)) say(`There is a group ${typed} already.`);
        else if (zones().length - 1 >= Number(adder.dataset.most)) say(`A sort holds at most ${adder.dataset.most} groups.`);
        else { addGroup(typed); name.value = ""; }
      };
      adder.querySelector(".sort-add").addEventListener("click", add);
      name.addEventListener("keydown", event => {
        if (event.key !== "Enter") return;
        event.preventDefault();
        event.stopPropagation();  // Enter adds the group: it does not send the page
        add();
      });
    }
    try {  // a draft's (or a suggestion's) sort laid out again, its own groups made again
      const kept = JSON.parse(field.value || "null");
      if (kept && typeof kept === "object") Object.entries(kept).forEach(([name, cards]) => {
        const zone = zones().slice(1).find(found => found.dataset.group === name) || (adder ? addGroup(name, true) : null);
        if (zone) cards.forEach(text => {
          const card = cardOf(text);
          if (card) moveTo(card, zone, true);
        });
      });
    } catch (error) { /* unreadable: start unsorted */ }
    number();
  }
  const begin = () => document.querySelectorAll(".card-sort").forEach(setup);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", begin);
  else begin();
})();
