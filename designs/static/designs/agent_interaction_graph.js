// An agent interaction graph (designs/schemes/agent_interaction_graph.py, Potato's agent_interaction_graph): an
// agent pressed (click, Enter or Space) goes on the critical path or comes off it; an arrow pressed moves on from
// normal to critical to problematic and back. The marks are kept as JSON in the scheme's field: the critical path
// in the order marked, the flagged arrows in the order first flagged (one set back to normal and flagged again goes
// last), as Potato's page keeps them. A line under the graph says what is marked, in words.
(() => {
  const NEXT = {"": "critical", critical: "problematic", problematic: ""};
  function setup(box) {
    const field = box.querySelector("input[type=hidden]");
    const summary = box.querySelector(".graph-summary");
    const marker = box.querySelector("marker").id;  // "<field>-arrow"
    let critical = [], edges = [];
    try {  // a draft's or a suggestion's marks
      const kept = JSON.parse(field.value || "null");
      if (kept) { critical = kept.critical_nodes || []; edges = kept.edges || []; }
    } catch (error) { /* unreadable: start unmarked */ }
    const status = path => (edges.find(edge => edge.from === path.dataset.from && edge.to === path.dataset.to) || {}).status || "";
    function draw() {
      box.querySelectorAll(".graph-node").forEach(node => {
        const on = critical.includes(node.dataset.node);
        node.classList.toggle("critical", on);
        node.setAttribute("aria-pressed", String(on));
      });
      box.querySelectorAll(".graph-edge").forEach(path => {
        const now = status(path);
        path.classList.toggle("critical", now === "critical");
        path.classList.toggle("problematic", now === "problematic");
        path.setAttribute("marker-end", `url(#${marker}${now ? "-" + now : ""})`);
        const count = Number(path.dataset.count);
        path.setAttribute("aria-label", `${path.dataset.from} to ${path.dataset.to} (${count} message${count > 1 ? "s" : ""}), status: ${now || "normal"}`);
      });
      const said = [];
      if (critical.length) said.push(`Critical path: ${critical.join(" · ")}.`);
      // Each edge's words are made apart: a template literal inside another's ${} loses its spaces when minified.
      const flagged = edges.map(edge => `${edge.from} → ${edge.to} (${edge.status})`);
      if (edges.length) said.push(`Flagged: ${flagged.join(" · ")}.`);
      summary.textContent = said.join(" ") || "Nothing marked yet.";
    }
    function save() {
      field.value = critical.length || edges.length ? JSON.stringify({critical_nodes: critical, edges}) : "";
      draw();
      field.dispatchEvent(new Event("change", {bubbles: true}));
    }
    const press = (element, act) => {
      element.addEventListener("click", act);
      element.addEventListener("keydown", event => {
        if (event.key !== "Enter" && event.key !== " ") return;
        event.preventDefault();
        event.stopPropagation();  // Enter and Space press the mark; they do not move on
        act();
      });
    };
    box.querySelectorAll(".graph-node").forEach(node => press(node, () => {
      const name = node.dataset.node;
      critical = critical.includes(name) ? critical.filter(found => found !== name) : [...critical, name];
      save();
    }));
    box.querySelectorAll(".graph-edge").forEach(path => press(path, () => {
      const next = NEXT[status(path)];
      const mine = edge => edge.from === path.dataset.from && edge.to === path.dataset.to;
      if (!next) edges = edges.filter(edge => !mine(edge));
      else if (edges.some(mine)) edges = edges.map(edge => mine(edge) ? {...edge, status: next} : edge);
      else edges = [...edges, {from: path.dataset.from, to: path.dataset.to, status: next}];
      save();
    }));
    draw();
  }
  const begin = () => document.querySelectorAll(".interaction-graph").forEach(setup);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", begin);
  else begin();
})();
