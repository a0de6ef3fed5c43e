// The design editor: the design is checked on the server as it is typed (the same checks as `design check`),
// each problem listed with its line, which a click selects in the text. An uploaded design file is read into
// the text box. The Potato and Label Studio forms' Check shows the import's report here without leaving the page;
// Import submits.
(function () {
  const form = document.getElementById("design-form");
  const source = document.getElementById("design-source");
  const status = document.getElementById("design-status");
  const fileName = document.getElementById("design-file-name");
  const csrf = form.querySelector("input[name=csrfmiddlewaretoken]").value;
  let timer = null;
  let asked = 0;

  function selectLine(number) {
    const lines = source.value.split("\n");
    const start = lines.slice(0, number - 1).reduce((sum, line) => sum + line.length + 1, 0);
    source.focus();
    source.setSelectionRange(start, start + (lines[number - 1] || "").length);
    const height = source.scrollHeight / Math.max(lines.length, 1);
    source.scrollTop = Math.max(0, (number - 3) * height);
  }

  function show(result) {
    status.replaceChildren();
    status.classList.toggle("error", !result.valid);
    const head = document.createElement("p");
    if (result.valid) {
      head.textContent = "Valid: " + result.title + " (" + result.schemes.map(s => s.name + ": " + s.type)
        .join(", ") + ").";
      status.append(head);
      return;
    }
    const strong = document.createElement("strong");
    strong.textContent = result.problems.length + " problem" + (result.problems.length === 1 ? "" : "s") + ":";
    head.append(strong);
    const list = document.createElement("ul");
    list.className = "design-problems";
    result.problems.forEach(problem => {
      const entry = document.createElement("li");
      if (problem.line) {
        const jump = document.createElement("button");
        jump.type = "button";
        jump.className = "link";
        jump.textContent = "line " + problem.line;
        jump.addEventListener("click", () => selectLine(problem.line));
        entry.append(jump, ": ");
      }
      if (problem.key) {
        const key = document.createElement("code");
        key.textContent = problem.key;
        entry.append(key, ": ");
      }
      entry.append(problem.message);
      list.append(entry);
    });
    status.append(head, list);
  }

  async function check() {
    const mine = ++asked;
    if (!source.value.trim()) {
      status.classList.remove("error");
      status.textContent = "Paste a design, upload one, or start from a shipped design.";
      return;
    }
    const body = new FormData();
    body.append("source", source.value);
    body.append("file_name", fileName.value);
    try {
      const response = await fetch(form.dataset.check, {method: "POST", body: body, credentials: "same-origin",
                                                         headers: {"X-CSRFToken": csrf, "Accept": "application/json"}});
      if (mine !== asked) return;  // a later keystroke's check is on its way
      if (!response.ok) throw new Error("the check answered " + response.status);
      show(await response.json());
    } catch (error) {
      if (mine === asked) status.textContent = "Could not check the design just now (" + error.message + ").";
    }
  }

  source.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(check, 350); });
  document.getElementById("design-upload").addEventListener("change", event => {
    const file = event.target.files[0];
    if (!file) return;
    file.text().then(text => {
      source.value = text;
      fileName.value = file.name;
      event.target.value = "";  // the text box now holds it, edits included
      check();
    });
  });
  if (source.value.trim()) check();

  // --- Potato and Label Studio: Check shows the import's report here -------------------------------------
  function reportOf(importForm, report, tool) {
    importForm.querySelector("button[value=check]").addEventListener("click", async event => {
      event.preventDefault();
      const body = new FormData(importForm);
      body.set("action", "check");
      report.textContent = "Checking…";
      let found;
      try {
        // getAttribute: the form's buttons are named "action", which shadows form.action.
        const response = await fetch(importForm.getAttribute("action"), {
          method: "POST", body: body, credentials: "same-origin",
          headers: {"X-CSRFToken": csrf, "Accept": "application/json"}});
        found = await response.json();
      } catch (error) {
        report.textContent = "Could not check the upload just now (" + error.message + "); try again.";
        return;
      }
      report.replaceChildren();
      if (found.error) {
        const box = document.createElement("p");
        box.className = "notice error";
        box.textContent = found.error;
        report.append(box);
      }
      found.reports.forEach(entry => report.append(section(entry, tool)));
    });
  }
  function section(entry, tool) {  // the same report as projects/_potato_reports.html renders without scripts
    const warnings = entry.warnings.length;
    const found = document.createElement("section");
    found.className = "potato-report notice" + (!entry.ok ? " error" : warnings ? " warning" : "");
    const title = document.createElement("h3");
    title.textContent = entry.config + ": " + (!entry.ok ? "not ready" : "ready" +
      (warnings ? ", with " + warnings + " warning" + (warnings === 1 ? "" : "s") : ""));
    const summary = document.createElement("p");
    summary.textContent = entry.items + " item" + (entry.items === 1 ? "" : "s") + "; schemes: " +
      (entry.schemes.map(s => s.name + " (" + s.type + (s.from ? ", from " + s.from : "") + ")").join(", ") || "none");
    found.append(title, summary);
    if (entry.annotations) {
      const given = document.createElement("p");
      given.className = "report-annotations";
      given.textContent = entry.annotations + " annotation" + (entry.annotations === 1 ? "" : "s") + " by " +
        entry.annotators + " annotator" + (entry.annotators === 1 ? "" : "s") + " came with " +
        (entry.saved_work ? "the project's saved work (" + entry.saved_work + ")" : "the tasks") + ": kept as " +
        "their answers beside the crowd's (reports and exports read them; no one is paid for them).";
      found.append(given);
    }
    if (entry.predictions) {
      const predicted = document.createElement("p");
      predicted.className = "report-predictions";
      predicted.textContent = entry.predictions + " prediction" + (entry.predictions === 1 ? "" : "s") + " by " +
        entry.models.join(", ") + " came with the tasks: each item starts with the best scored as its suggestion, " +
        "and each model's are kept as its answers beside the crowd's, to measure against them.";
      found.append(predicted);
    }
    if (entry.ignored.length) {
      const ignored = document.createElement("p");
      ignored.textContent = (tool === "Potato" ? "Ignored (Potato's own server and pages): " : "Not carried over: ")
        + entry.ignored.join(", ");
      found.append(ignored);
    }
    if (warnings) {
      const heading = document.createElement("p");
      heading.textContent = "Not carried over (the study here differs from " + tool + "'s in these):";
      found.append(heading);
    }
    [[entry.warnings, "potato-warnings"], [entry.notes, "muted"], [entry.errors, "design-problems"]].forEach(
      ([lines, name]) => {
        if (!lines.length) return;
        const list = document.createElement("ul");
        list.className = name;
        lines.forEach(line => {
          const item = document.createElement("li");
          item.textContent = line;
          list.append(item);
        });
        found.append(list);
      });
    return found;
  }
  reportOf(document.getElementById("potato-form"), document.getElementById("potato-report"), "Potato");
  reportOf(document.getElementById("labelstudio-form"), document.getElementById("labelstudio-report"),
           "Label Studio");
})();
