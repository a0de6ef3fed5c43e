// A personal network (designs/schemes/ego_network.py, Potato's ego_network): people named in name generators (typed,
// or picked from a roster), a name interpreter's questions about each, a census of each pair and a sociogram where
// they are placed and tied. The stages come from the server (data-config); the whole answer is kept as JSON in the
// scheme's field, as Potato's page keeps it, and the widget is drawn again from it after each change (the control
// that had the focus keeps it, by its data-fk). Everything works by keyboard: on the sociogram a person is moved with
// the arrow keys (Shift: further) and Enter lists their ties as boxes to tick, as on Potato's page. Keys pressed in
// the widget are its own: they do not pick another scheme's label, move to another item or send the page.
(() => {
  const SVG = "http://www.w3.org/2000/svg";
  const VIEW = 1000, RADIUS = 44;
  const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;
  const answered = v => v !== undefined && v !== null && (typeof v === "string" ? v.trim() !== "" : !Array.isArray(v) || v.length > 0);

  function make(tag, attrs = {}, children = [], ns = null) {
    const node = ns ? document.createElementNS(ns, tag) : document.createElement(tag);
    for (const [key, value] of Object.entries(attrs)) {
      if (value === undefined || value === null || value === false) continue;
      if (key === "text") node.textContent = value;
      else if (key === "className") node.setAttribute("class", value);
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children) if (child) node.append(child);
    return node;
  }
  const svg = (tag, attrs, children) => make(tag, attrs, children, SVG);

  function setup(box) {
    const config = JSON.parse(box.dataset.config);
    const rosters = JSON.parse(box.dataset.rosters || "{}");
    const field = box.querySelector("input[type=hidden]");
    const body = box.querySelector(".ego-body");
    const status = box.querySelector(".ego-status");
    const left = box.querySelector(".ego-left");
    const stages = config.stages;
    const uid = field.name.replace(/[^A-Za-z0-9_-]/g, "_");
    const answer = {alters: [], attributes: {}, ties: [], positions: {}, census: {}, tie_attributes: {}};
    try {  // a draft, or a model's suggestion
      const kept = JSON.parse(field.value || "null");
      if (kept && Array.isArray(kept.alters)) Object.assign(answer, kept);
    } catch (error) { /* an unreadable draft starts empty */ }
    let step = 0;
    const selected = {}, pairAt = {}, messages = {};

    const byId = id => answer.alters.find(a => a.id === id);
    const order = () => Object.fromEntries(answer.alters.map((a, i) => [a.id, i]));
    function pairKey(a, b, relation) {
      const o = order();
      if (o[a] > o[b]) [a, b] = [b, a];
      return `${a}|${b}${relation ? "|" + relation : ""}`;
    }
    const tieAt = (a, b, relation) => answer.ties.findIndex(t => (t[2] || "") === (relation || "")
      && ((t[0] === a && t[1] === b) || (t[0] === b && t[1] === a)));
    function setTie(a, b, relation, on) {
      const at = tieAt(a, b, relation);
      if (on && at < 0) {
        const o = order();
        const ends = o[a] < o[b] ? [a, b] : [b, a];
        answer.ties.push(relation ? [...ends, relation] : ends);
      } else if (!on && at >= 0) {
        answer.ties.splice(at, 1);
        delete answer.tie_attributes[pairKey(a, b, relation)];
      }
      // A census of the same relation always agrees with the ties drawn, as on Potato's page.
      if (stages.some(s => s.type === "dyad_census" && (s.relation || "") === (relation || ""))) answer.census[pairKey(a, b, relation)] = on;
    }
    const namedHere = stage => answer.alters.filter(a => a.named_in.includes(stage.id));
    const pairs = () => answer.alters.flatMap((a, i) => answer.alters.slice(i + 1).map(b => [a, b]));
    const censusDone = stage => pairs().filter(([a, b]) => pairKey(a.id, b.id, stage.relation) in answer.census).length;

    // What a required scheme still asks (the same rules as designs.schemes.ego_network.shortfalls).
    function reasons(stage) {
      if (stage.type === "name_generator") {
        const here = namedHere(stage).length, need = stage.min_alters || 0;
        return here < need ? [`${stage.title}: name at least ${plural(need, "person", "people")} (${here} so far)`] : [];
      }
      if (stage.type === "name_interpreter") return stage.questions.filter(q => q.required).flatMap(q => {
        const left = answer.alters.filter(a => !answered((answer.attributes[a.id] || {})[q.name])).length;
        return left ? [`${stage.title}: '${(q.description || q.name).replace(/\{name\}/g, "this person")}' unanswered for ${plural(left, "person", "people")}`] : [];
      });
      if (stage.type === "dyad_census") {
        const total = pairs().length, done = censusDone(stage);
        return done < total ? [`${stage.title}: ${done} of ${plural(total, "pair", "pairs")} answered`] : [];
      }
      return [];
    }
    // A required network short of what its stages ask keeps the item open, as Potato's page holds a required one.
    function mark() {
      const scheme = box.closest(".scheme");
      const missing = stages.flatMap(reasons);
      // Said in a line under the network, where a phone or a screen reader finds it (a title is hover only).
      const shown = scheme.dataset.required === "true" && answer.alters.length && missing.length;
      if (shown) scheme.dataset.invalid = "true";
      else delete scheme.dataset.invalid;
      left.hidden = !shown;
      left.textContent = shown ? `Still to do: ${missing.join("; ")}.` : "";
    }
    function save() {
      field.value = answer.alters.length ? JSON.stringify(answer) : "";
      mark();
      field.dispatchEvent(new Event("change", {bubbles: true}));
    }
    function say(text) {
      status.textContent = "";
      setTimeout(() => { status.textContent = text; }, 30);  // a new text, so the same words are read again
    }
    function deleteAlter(id) {
      answer.alters = answer.alters.filter(a => a.id !== id);
      delete answer.attributes[id];
      delete answer.positions[id];
      answer.ties = answer.ties.filter(t => t[0] !== id && t[1] !== id);
      for (const map of [answer.census, answer.tie_attributes]) {
        for (const key of Object.keys(map)) if (key.split("|").slice(0, 2).includes(id)) delete map[key];
      }
      for (const key of Object.keys(selected)) if (selected[key] === id) delete selected[key];
    }
    function applySets(stage, alter, on) {
      for (const [key, value] of Object.entries(stage.sets || {})) {
        const attrs = answer.attributes[alter.id] || (answer.attributes[alter.id] = {});
        if (on) attrs[key] = value;
        else if (attrs[key] === value) delete attrs[key];
      }
    }
    function addTo(stage, alter) {
      if (alter.named_in.includes(stage.id)) return;
      alter.named_in.push(stage.id);
      applySets(stage, alter, true);
    }
    function removeFrom(stage, alter) {
      alter.named_in = alter.named_in.filter(s => s !== stage.id);
      applySets(stage, alter, false);
      if (!alter.named_in.length) deleteAlter(alter.id);
      say(`${alter.name} removed.`);
    }
    const full = stage => stage.max_alters && namedHere(stage).length >= stage.max_alters;
    function addNew(stage, raw, rosterId) {
      const name = String(raw || "").replace(/\s+/g, " ").trim().slice(0, 60);
      if (!name) { messages[stage.id] = "Type a name first."; return false; }
      if (full(stage)) { messages[stage.id] = `This list is full (${stage.max_alters} people).`; return false; }
      const existing = answer.alters.find(a => a.name.toLowerCase() === name.toLowerCase());
      if (existing) {
        messages[stage.id] = existing.named_in.includes(stage.id) ? `${existing.name} is already on this list.`
          : `You already named ${existing.name}. If this is the same person, add them under "Named earlier"; if not, add an initial (for example "${name} K.").`;
        return false;
      }
      const next = 1 + Math.max(0, ...answer.alters.map(a => Number((/^a(\d+)$/.exec(a.id) || [])[1] || 0)));
      const alter = {id: `a${next}`, name, named_in: []};
      if (rosterId !== undefined) alter.roster_id = rosterId;
      answer.alters.push(alter);
      addTo(stage, alter);
      say(`${name} added.`);
      return true;
    }
    const changed = () => { save(); draw(); };

    function generator(stage, section) {
      const here = namedHere(stage);
      const limits = [stage.min_alters ? `at least ${stage.min_alters}` : "", stage.max_alters ? `at most ${stage.max_alters}` : ""].filter(Boolean);
      const bounds = limits.length ? ` (${limits.join(", ")})` : "";
      section.append(make("p", {className: "ego-count", text: `${plural(here.length, "person", "people")} named${bounds}`}));
      const roster = stage.roster || rosters[stage.id];
      if (roster && roster.length) {
        const search = make("input", {type: "search", className: "ego-name", "data-fk": `search-${stage.id}`, placeholder: "Search the list",
          "aria-label": "Search the list of names", autocomplete: "off"});
        const list = make("ul", {className: "ego-roster", "aria-label": "Names to choose from"});
        search.addEventListener("input", () => {
          const sought = search.value.trim().toLowerCase();
          for (const row of list.children) row.hidden = Boolean(sought) && !row.textContent.toLowerCase().includes(sought);
        });
        roster.forEach((entry, i) => {
          const person = typeof entry === "object" ? entry : {name: String(entry)};
          const rosterId = person.id === undefined ? undefined : String(person.id);
          const alter = rosterId !== undefined ? answer.alters.find(a => a.roster_id === rosterId)
            : answer.alters.find(a => a.name.toLowerCase() === person.name.toLowerCase());
          const on = Boolean(alter && alter.named_in.includes(stage.id));
          list.append(make("li", {}, [make("button", {type: "button", "aria-pressed": String(on), "data-fk": `roster-${stage.id}-${i}`,
            disabled: !on && full(stage), onclick: () => {
              if (on) removeFrom(stage, alter);
              else if (alter) { addTo(stage, alter); say(`${alter.name} added.`); }
              else addNew(stage, person.name, rosterId);
              changed();
            }}, [on ? make("span", {"aria-hidden": "true", text: "✓ "}) : null, person.name])]));
        });
        section.append(search, list);
      } else {
        if (stage.roster_field) section.append(make("p", {className: "ego-note", text: "There is no list of names for this item, so type the names instead."}));
        const input = make("input", {type: "text", className: "ego-name", id: `${uid}-name-${stage.id}`, "data-fk": `name-${stage.id}`, maxlength: "60",
          autocomplete: "off", placeholder: stage.placeholder || "First name or nickname", disabled: full(stage), "aria-keyshortcuts": "Enter"});
        const add = () => {
          if (addNew(stage, input.value)) save();
          draw();
          const again = body.querySelector(`[data-fk="name-${stage.id}"]`);
          if (again && !again.disabled) again.focus();
        };
        input.addEventListener("keydown", event => {
          if (event.key === "Enter" && !event.isComposing) { event.preventDefault(); add(); }
        });
        section.append(make("label", {for: input.id, text: "Name"}),
          make("div", {className: "ego-add"}, [input, make("button", {type: "button", "data-fk": `add-${stage.id}`, disabled: full(stage), text: "Add", onclick: add})]));
        if (full(stage)) section.append(make("p", {className: "ego-note", text: "This list is full. Remove someone to add another person."}));
      }
      if (here.length) section.append(make("ul", {className: "ego-chips", "aria-label": "People named here"}, here.map(a => make("li", {}, [
        make("span", {text: a.name}),
        make("button", {type: "button", className: "ego-remove", "data-fk": `rm-${stage.id}-${a.id}`, "aria-label": `Remove ${a.name}`, title: "Remove", text: "×",
          onclick: () => { removeFrom(stage, a); changed(); }})]))));
      const earlier = answer.alters.filter(a => !a.named_in.includes(stage.id));
      if (earlier.length) {
        section.append(make("p", {className: "ego-sub", text: "Named earlier (add anyone who also belongs here):"}),
          make("ul", {className: "ego-chips"}, earlier.map(a => make("li", {}, [make("button", {type: "button", "data-fk": `also-${stage.id}-${a.id}`,
            disabled: full(stage), "aria-label": `Add ${a.name} to this list`, text: `+ ${a.name}`,
            onclick: () => { addTo(stage, a); say(`${a.name} added.`); changed(); }})]))));
      }
    }

    function setAttribute(alter, name, value) {
      const attrs = answer.attributes[alter.id] || (answer.attributes[alter.id] = {});
      if (answered(value)) attrs[name] = value;
      else delete attrs[name];
      if (!Object.keys(attrs).length) delete answer.attributes[alter.id];
    }
    function question(stage, alter, q) {
      const value = (answer.attributes[alter.id] || {})[q.name];
      const label = `${uid}-q-${alter.id}-${q.name}`;
      const asked = (q.description || q.name).replace(/\{name\}/g, alter.name);
      const wrap = make("div", {className: "ego-question"}, [make("p", {id: label, text: asked}, [q.required ? make("span", {className: "required", "aria-hidden": "true", text: " *"}) : null])]);
      if (q.type === "radio" || q.type === "multiselect") {
        const many = q.type === "multiselect";
        wrap.append(make("div", {className: "ego-options", role: many ? "group" : "radiogroup", "aria-labelledby": label}, q.labels.map(l => {
          const on = many ? Array.isArray(value) && value.includes(l.name) : value === l.name;
          return make("button", {type: "button", role: many ? "checkbox" : "radio", "aria-checked": String(on), "data-fk": `opt-${alter.id}-${q.name}-${l.name}`,
            text: l.text || l.name, onclick: () => {
              if (many) {
                const now = Array.isArray(value) ? value.filter(v => v !== l.name) : [];
                setAttribute(alter, q.name, on ? now : [...now, l.name]);
              } else setAttribute(alter, q.name, l.name);
              changed();
            }});
        })));
      } else {
        const input = make("input", {type: q.type === "number" ? "number" : "text", "aria-labelledby": label, "data-fk": `in-${alter.id}-${q.name}`,
          min: q.min ?? null, max: q.max ?? null, step: q.step ?? (q.type === "number" ? "any" : null), placeholder: q.placeholder || null, autocomplete: "off"});
        input.value = value === undefined || value === null ? "" : String(value);
        // Typing does not draw the widget again (the caret would move): kept as typed, saved when it changes.
        input.addEventListener("input", () => {
          const typed = q.type === "number" ? (input.value === "" || isNaN(Number(input.value)) ? null : Number(input.value)) : input.value;
          setAttribute(alter, q.name, typed);
          save();
        });
        input.addEventListener("keydown", event => { if (event.key === "Enter") event.preventDefault(); });
        wrap.append(input);
      }
      return wrap;
    }
    function interpreter(stage, section) {
      if (!answer.alters.length) { section.append(make("p", {className: "ego-note", text: "Name some people in an earlier step first."})); return; }
      for (const a of answer.alters) {
        const attrs = answer.attributes[a.id] || {};
        const done = stage.questions.filter(q => answered(attrs[q.name])).length;
        const heading = `${uid}-card-${stage.id}-${a.id}`;
        section.append(make("section", {className: "ego-card", "aria-labelledby": heading}, [
          make("h4", {id: heading, text: a.name}, [make("span", {className: "ego-progress", text: ` ${done} of ${stage.questions.length} answered`})]),
          ...stage.questions.map(q => question(stage, a, q))]));
      }
    }

    function censusValue(stage, a, b) {
      const key = pairKey(a.id, b.id, stage.relation);
      if (!(key in answer.census)) return undefined;
      if (!answer.census[key]) return "no";
      const strength = (answer.tie_attributes[key] || {})[stage.strength_variable];
      return stage.strength_labels && strength !== undefined ? `yes:${strength}` : "yes";
    }
    function census(stage, section) {
      const all = pairs();
      if (!all.length) { section.append(make("p", {className: "ego-note", text: "This step needs at least two people."})); return; }
      let at = pairAt[stage.id];
      if (at === undefined || at >= all.length) {
        at = Math.max(0, all.findIndex(([a, b]) => censusValue(stage, a, b) === undefined));
        pairAt[stage.id] = at;
      }
      const [a, b] = all[at];
      const now = censusValue(stage, a, b);
      const asked = `${uid}-pair-${stage.id}`;
      section.append(make("p", {className: "ego-count", text: `Pair ${at + 1} of ${all.length} · ${censusDone(stage)} answered`}),
        make("p", {className: "ego-pair", id: asked}, String(stage.prompt).split(/(\{a\}|\{b\})/).map(part =>
          part === "{a}" ? make("strong", {text: a.name}) : part === "{b}" ? make("strong", {text: b.name}) : part)));
      const choices = (stage.strength_labels || []).map(l => ({key: `yes:${l.name}`, text: l.text || l.name, yes: true, strength: l.name}));
      if (!choices.length) choices.push({key: "yes", text: stage.yes_label, yes: true});
      choices.push({key: "no", text: stage.no_label, yes: false});
      section.append(make("div", {className: "ego-options", role: "radiogroup", "aria-labelledby": asked}, choices.map(c => make("button", {
        type: "button", role: "radio", "aria-checked": String(now === c.key), "data-fk": `pair-${stage.id}-${c.key}`, text: c.text, onclick: () => {
          const key = pairKey(a.id, b.id, stage.relation);
          setTie(a.id, b.id, stage.relation, c.yes);
          answer.census[key] = c.yes;
          if (c.yes && stage.strength_labels) (answer.tie_attributes[key] = answer.tie_attributes[key] || {})[stage.strength_variable] = c.strength;
          say(`${a.name} and ${b.name}: ${c.text}.`);
          // On to the next pair still unanswered, if any (the focus stays on the same choice of the next pair).
          for (let k = 1; k <= all.length; k++) {
            const j = (at + k) % all.length;
            if (censusValue(stage, ...all[j]) === undefined) { pairAt[stage.id] = j; break; }
          }
          changed();
        }}))),
      make("div", {className: "ego-nav"}, [
        make("button", {type: "button", className: "secondary", "data-fk": `pprev-${stage.id}`, disabled: at === 0, text: "← Previous pair", onclick: () => { pairAt[stage.id] = at - 1; draw(); }}),
        make("button", {type: "button", className: "secondary", "data-fk": `pnext-${stage.id}`, disabled: at === all.length - 1, text: "Next pair →", onclick: () => { pairAt[stage.id] = at + 1; draw(); }})]));
    }

    const start = (i, n) => n === 1 ? [0.5, 0.5] : [0.5 + 0.34 * Math.cos(-Math.PI / 2 + 2 * Math.PI * i / n), 0.5 + 0.34 * Math.sin(-Math.PI / 2 + 2 * Math.PI * i / n)];
    const place = a => {
      const p = answer.positions[a.id];
      return p && p.length === 2 && isFinite(p[0]) && isFinite(p[1]) ? p : start(answer.alters.indexOf(a), answer.alters.length);
    };
    const round = v => Math.round(v * 10000) / 10000;
    // Everyone's place is kept once the canvas is changed, as Potato's page keeps it.
    const fix = () => answer.alters.forEach(a => { answer.positions[a.id] = place(a).map(round); });
    const clamp = v => Math.min(0.95, Math.max(0.05, v));
    function sociogram(stage, section) {
      const alters = answer.alters;
      if (!alters.length) { section.append(make("p", {className: "ego-note", text: "Name some people in an earlier step first."})); return; }
      let chosen = selected[stage.id];
      if (chosen && !byId(chosen)) { chosen = null; delete selected[stage.id]; }
      const rel = stage.relation || "";
      const canvas = svg("svg", {className: "ego-canvas", viewBox: `0 0 ${VIEW} ${VIEW}`, role: "group", "aria-label": `Network: ${plural(alters.length, "person", "people")}`});
      for (let r = stage.rings; r >= 1; r--) canvas.append(svg("circle", {className: "ego-ring", cx: VIEW / 2, cy: VIEW / 2, r: (VIEW / 2 - 12) * r / stage.rings}));
      if (stage.rings) canvas.append(svg("circle", {className: "ego-self", cx: VIEW / 2, cy: VIEW / 2, r: 10}));
      for (const t of answer.ties) {
        const [A, B] = [byId(t[0]), byId(t[1])];
        if ((t[2] || "") !== rel || !A || !B) continue;
        const [pa, pb] = [place(A), place(B)];
        canvas.append(svg("line", {className: "ego-tie", x1: pa[0] * VIEW, y1: pa[1] * VIEW, x2: pb[0] * VIEW, y2: pb[1] * VIEW}));
      }
      const tap = id => {
        const who = byId(id), current = selected[stage.id];
        if (!stage.allow_ties || !current || current === id) {
          if (current === id) delete selected[stage.id]; else selected[stage.id] = id;
          if (stage.allow_ties) say(current === id ? `${who.name} deselected.` : `${who.name} selected: choose the people they know.`);
          draw();
          return;
        }
        const on = tieAt(current, id, stage.relation) < 0;
        setTie(current, id, stage.relation, on);
        fix();
        delete selected[stage.id];
        say(`Tie ${on ? "added" : "removed"} between ${byId(current).name} and ${who.name}.`);
        changed();
      };
      for (const a of alters) {
        const [x, y] = place(a);
        const ties = answer.ties.filter(t => (t[2] || "") === rel && (t[0] === a.id || t[1] === a.id)).length;
        const node = svg("g", {className: `ego-node${chosen === a.id ? " chosen" : ""}`, tabindex: "0", role: "button", "data-fk": `node-${stage.id}-${a.id}`,
          "aria-pressed": String(chosen === a.id), "aria-keyshortcuts": "ArrowLeft ArrowRight ArrowUp ArrowDown Enter",
          "aria-label": `${a.name}${stage.allow_ties ? ", " + plural(ties, "tie", "ties") : ""}. Arrow keys move this person${stage.allow_ties ? "; Enter lists their ties" : ""}.`,
          transform: `translate(${x * VIEW} ${y * VIEW})`}, [
          svg("circle", {r: RADIUS}), svg("text", {"text-anchor": "middle", y: RADIUS + 34, text: a.name.length > 11 ? a.name.slice(0, 10) + "…" : a.name})]);
        let drag = null;
        node.addEventListener("pointerdown", event => {
          if (event.button) return;
          event.preventDefault();
          node.focus({preventScroll: true});
          node.setPointerCapture(event.pointerId);
          drag = {x: event.clientX, y: event.clientY, moved: false};
        });
        node.addEventListener("pointermove", event => {
          if (!drag || (!drag.moved && Math.abs(event.clientX - drag.x) + Math.abs(event.clientY - drag.y) < 6)) return;
          drag.moved = true;
          const point = new DOMPoint(event.clientX, event.clientY).matrixTransform(canvas.getScreenCTM().inverse());
          answer.positions[a.id] = [clamp(point.x / VIEW), clamp(point.y / VIEW)];
          node.setAttribute("transform", `translate(${answer.positions[a.id][0] * VIEW} ${answer.positions[a.id][1] * VIEW})`);
        });
        const end = event => {
          if (!drag) return;
          const moved = drag.moved;
          drag = null;
          if (moved) { fix(); changed(); } else if (event.type === "pointerup") tap(a.id);
        };
        node.addEventListener("pointerup", end);
        node.addEventListener("pointercancel", end);
        node.addEventListener("keydown", event => {
          const by = event.shiftKey ? 0.08 : 0.02;
          const move = {ArrowLeft: [-by, 0], ArrowRight: [by, 0], ArrowUp: [0, -by], ArrowDown: [0, by]}[event.key];
          if (event.key === "Enter" || event.key === " ") { event.preventDefault(); tap(a.id); }
          else if (move) {
            event.preventDefault();
            const [px, py] = place(a);
            answer.positions[a.id] = [clamp(px + move[0]), clamp(py + move[1])];
            fix();
            changed();
          } else if (event.key === "Escape" && selected[stage.id]) { delete selected[stage.id]; draw(); }
        });
        canvas.append(node);
      }
      section.append(make("div", {className: "ego-canvas-box"}, [canvas]));
      if (!stage.allow_ties || !chosen) {
        section.append(make("p", {className: "ego-note", text: stage.allow_ties ? "Keyboard: Tab to a person and press Enter to list their ties; the arrow keys move them."
          : "Drag people to place them, or Tab to a person and use the arrow keys."}));
        return;
      }
      const who = byId(chosen);
      const heading = `${uid}-ties-${stage.id}`;
      const done = () => {
        delete selected[stage.id];
        draw();
        body.querySelector(`[data-fk="node-${stage.id}-${who.id}"]`)?.focus({preventScroll: true});
      };
      const panel = make("div", {className: "ego-ties", role: "group", "aria-labelledby": heading}, [
        make("p", {id: heading, text: `Who does ${who.name} know? (choose to add or remove a tie)`}),
        make("div", {className: "ego-options"}, alters.filter(o => o.id !== chosen).map(o => {
          const on = tieAt(chosen, o.id, stage.relation) >= 0;
          return make("button", {type: "button", role: "checkbox", "aria-checked": String(on), "data-fk": `tie-${stage.id}-${o.id}`, text: o.name, onclick: () => {
            setTie(chosen, o.id, stage.relation, !on);
            fix();
            say(`Tie ${on ? "removed" : "added"} between ${who.name} and ${o.name}.`);
            changed();
          }});
        })),
        make("button", {type: "button", "data-fk": `tdone-${stage.id}`, text: `Done with ${who.name}`, onclick: done})]);
      panel.addEventListener("keydown", event => { if (event.key === "Escape") { event.preventDefault(); done(); } });
      section.append(panel);
    }

    const DRAW = {name_generator: generator, name_interpreter: interpreter, dyad_census: census, sociogram};
    // A step is marked done once it has what it asks (a generator at least one person); a sociogram never is.
    const finished = stage => answer.alters.length > 0 && stage.type !== "sociogram" && (stage.type === "name_generator"
      ? namedHere(stage).length >= Math.max(1, stage.min_alters || 0) : !reasons(stage).length);
    // The first name generator still short of its least people: later steps wait for it, as on Potato's page.
    const blocked = () => {
      const at = stages.findIndex(s => s.type === "name_generator" && namedHere(s).length < (s.min_alters || 0));
      return at < 0 ? stages.length : at;
    };
    function section(stage, index, stacked) {
      const heading = `${uid}-stage-${index}`;
      const part = make("section", {className: `ego-stage ego-${stage.type}`, "aria-labelledby": heading}, [
        make("h3", {className: "ego-stage-title", id: heading, tabindex: "-1", text: `${stacked ? index + 1 + ". " : ""}${stage.title}`}),
        stage.instructions ? make("p", {className: "ego-instructions", text: stage.instructions}) : null,
        stage.type === "dyad_census" ? null : make("p", {className: "ego-prompt", text: stage.prompt})]);
      DRAW[stage.type](stage, part);
      if (messages[stage.id]) {
        part.append(make("p", {className: "ego-message", role: "alert", text: messages[stage.id]}));
        delete messages[stage.id];
      }
      return part;
    }
    function go(to) {
      if (to < 0 || to >= stages.length) return;
      const stop = blocked();
      if (to > stop) {
        messages[stages[stop].id] = `Name at least ${plural(stages[stop].min_alters, "person", "people")} before going on.`;
        to = stop;
      }
      step = to;
      draw();
      body.querySelector(".ego-stage-title").focus({preventScroll: true});
    }
    function draw() {
      const active = document.activeElement;
      const focusKey = active && box.contains(active) ? active.getAttribute("data-fk") : null;
      const parts = [];
      if (config.layout === "stacked") stages.forEach((stage, i) => parts.push(section(stage, i, true)));
      else {
        step = Math.min(step, stages.length - 1);
        const stop = blocked();
        parts.push(make("ol", {className: "ego-steps", "aria-label": "Steps"}, stages.map((stage, i) => make("li", {}, [make("button", {
          type: "button", className: "ego-step", "data-fk": `step-${i}`, "aria-current": i === step ? "step" : null, disabled: i > stop,
          text: `${finished(stage) ? "✓" : i + 1 + "."} ${stage.title}`, "aria-label": `Step ${i + 1} of ${stages.length}: ${stage.title}${finished(stage) ? " (done)" : ""}`,
          onclick: () => go(i)})]))));
        parts.push(section(stages[step], step, false));
        parts.push(make("div", {className: "ego-nav"}, [
          make("button", {type: "button", className: "secondary", "data-fk": "back", disabled: step === 0, text: "← Back", onclick: () => go(step - 1)}),
          step < stages.length - 1 ? make("button", {type: "button", "data-fk": "next", text: `Next: ${stages[step + 1].title} →`, onclick: () => go(step + 1)})
            : make("span", {text: "Last step"})]));
      }
      body.replaceChildren(...parts);
      if (focusKey) {
        const target = body.querySelector(`[data-fk="${CSS.escape(focusKey)}"]`);
        if (target && !target.disabled) target.focus({preventScroll: true});
      }
    }
    // The widget's keys are its own (a name typed, a person moved, Enter on its buttons); Tab still leaves it.
    box.addEventListener("keydown", event => { if (event.key !== "Tab") event.stopPropagation(); });
    draw();
    mark();  // a draft's network is marked, not sent again
  }
  const begin = () => document.querySelectorAll(".ego").forEach(setup);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", begin);
  else begin();
})();
