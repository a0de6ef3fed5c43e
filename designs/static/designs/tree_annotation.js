// A tree annotation's path (designs/schemes/tree_annotation.py, Potato's tree_annotation): each node's "On the path"
// puts it on the path, after the nodes already there, or takes it off, as a click on a node does on Potato's page;
// the path is kept as its nodes' ids in the scheme's path field and said in order. A draft's path is marked again.
(() => {
  function setup(box) {
    const field = box.querySelector(".tree-path-field");
    if (!field) return;
    const said = box.querySelector(".tree-path-nodes");
    const toggles = [...box.querySelectorAll(".tree-on-path")];
    const of = id => toggles.find(toggle => toggle.closest(".tree-node").dataset.node === id);
    const read = () => { try { return JSON.parse(field.value || "[]"); } catch (error) { return []; } };
    function show(path) {
      toggles.forEach(toggle => toggle.setAttribute("aria-pressed", String(path.includes(toggle.closest(".tree-node").dataset.node))));
      said.textContent = path.length ? path.map(id => `${of(id).closest(".tree-node").querySelector(".speaker")?.textContent.replace(/:$/, "") || ""} (${id})`.trim()).join(" → ") : "no path yet";
    }
    function store(path) {
      field.value = path.length ? JSON.stringify(path) : "";
      show(path);
      field.dispatchEvent(new Event("change", {bubbles: true}));
    }
    toggles.forEach(toggle => toggle.addEventListener("click", () => {
      const id = toggle.closest(".tree-node").dataset.node;
      const path = read();
      store(path.includes(id) ? path.filter(step => step !== id) : [...path, id]);
    }));
    box.querySelector(".tree-clear").addEventListener("click", () => store([]));
    show(read().filter(of));
  }
  document.addEventListener("DOMContentLoaded", () => document.querySelectorAll(".tree-widget").forEach(setup));
})();
