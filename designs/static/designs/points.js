// Widgets of numbers that hold each other (designs/schemes: range_slider, constant_sum), on the pages that ask
// them: a range's low end stays at or below its high end; points shared out stay within their total, shown as
// they are given, and sliders that start evenly spread move each other in proportion, as Potato's soft_label.
// A slider's value is sent (its hidden field) only once one of its group is moved, and then the whole group's.
// The server checks every answer again.
window.crowdsetPoints = function ({form, changed}) {
  const number = input => parseInt(input.value, 10) || 0;
  const total = group => Number(group.dataset.total);
  const least = group => Number(group.dataset.least || 0);
  const boxes = group => [...group.querySelectorAll("input[type=range], input[type=number]")];
  const hiddenOf = range => form.querySelector(`[name="${CSS.escape(range.dataset.sets)}"]`);

  // Moving one slider of a spread group takes what it gains from the others in proportion to what they hold (and
  // gives back what it loses), rounding as Potato does, so the total holds.
  function rebalance(moved, sliders, most, floor) {
    const others = sliders.filter(slider => slider !== moved);
    const excess = sliders.reduce((sum, slider) => sum + number(slider), 0) - most;
    if (!excess) return;
    const held = others.reduce((sum, slider) => sum + number(slider), 0);
    if (held <= 0) {
      if (excess > 0) moved.value = number(moved) - excess;
      return;
    }
    let owed = excess;
    const take = (slider, amount) => {
      const before = number(slider);
      slider.value = Math.max(floor, before - amount);
      owed -= before - number(slider);
    };
    others.forEach(slider => take(slider, Math.round(number(slider) / held * excess)));
    for (const slider of others) {
      if (!owed) break;
      take(slider, owed);
    }
  }
  // A box or slider of a capped group: at least its floor, at most what the others leave (an empty box stays
  // empty when the floor is 0).
  function cap(input, inputs, most, floor) {
    let value = parseInt(input.value, 10);
    if (isNaN(value) || value < floor) {
      value = floor;
      input.value = value || (input.type === "number" ? "" : 0);
    }
    const room = most - inputs.filter(other => other !== input).reduce((sum, other) => sum + number(other), 0);
    if (value > room) input.value = Math.max(floor, room);
  }
  function status(group) {
    if (group.dataset.kind !== "sum") return;
    const given = boxes(group).filter(input => input.type === "range" ? hiddenOf(input).value !== "" : input.value !== "");
    const shared = boxes(group).reduce((sum, input) => sum + number(input), 0);
    group.querySelector(".points-given").textContent = given.length ? shared : 0;
    group.querySelector(".points-left").textContent = total(group) - (given.length ? shared : 0);
    // Points given but not all shared out cannot be sent: the item stays open until they are.
    const scheme = group.closest(".scheme");
    if (given.length && shared !== total(group)) scheme.dataset.invalid = "true";
    else delete scheme.dataset.invalid;
  }
  function moved(input) {
    const group = input.closest(".points");
    const inputs = boxes(group);
    if (group.dataset.kind === "range") {
      const [low, high] = inputs;
      if (Number(low.value) > Number(high.value)) (input === low ? high : low).value = input.value;
    } else if (group.dataset.spread) {
      rebalance(input, inputs, total(group), least(group));
    } else {
      cap(input, inputs, total(group), least(group));
    }
    inputs.filter(other => other.type === "range").forEach(range => {
      hiddenOf(range).value = range.value;
      range.parentElement.querySelector(`output[for="${CSS.escape(range.id)}"]`).textContent = range.value;
    });
    status(group);
    changed(input.type === "range" ? hiddenOf(input) : input);
  }
  const groups = [...form.querySelectorAll(".points")];
  groups.forEach(group => {
    group.addEventListener("input", event => moved(event.target));
    group.addEventListener("focusout", event => { if (event.target.type === "number") moved(event.target); });
  });
  return {
    restore() {  // a draft's values back on the sliders, and each group's status
      groups.forEach(group => {
        boxes(group).filter(input => input.type === "range" && hiddenOf(input).value !== "").forEach(range => {
          range.value = hiddenOf(range).value;
          range.parentElement.querySelector(`output[for="${CSS.escape(range.id)}"]`).textContent = range.value;
        });
        status(group);
      });
    },
  };
};
