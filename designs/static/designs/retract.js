// Radios that can be left unpicked again (a `.retract` group: a turn's rating, a turn's act): a choice picked again
// is taken back, as a second click on Potato's rating circles or act buttons clears it, so a turn rated or tagged
// by mistake can be left as it was (by a click or Space).
(() => {
  let held = null;  // the radio that was already picked when the pointer or Space went down on it
  const note = event => {
    const label = event.target.closest ? event.target.closest(".retract label") : null;
    const input = label ? label.control : event.target;  // a point's number is its radio's label
    held = input.matches && input.matches(".retract input[type=radio]") && input.checked ? input : null;
  };
  const clear = input => {
    held = null;
    input.checked = false;
    input.dispatchEvent(new Event("change", {bubbles: true}));
  };
  document.addEventListener("pointerdown", note, true);
  document.addEventListener("click", event => { if (event.target === held) clear(held); });
  // Space on a radio already picked fires no click (Chromium): it is taken back when the key comes up, the
  // browser's own press of it (which would pick it again) held back.
  document.addEventListener("keydown", event => { if (event.key === " ") note(event); }, true);
  document.addEventListener("keyup", event => {
    if (event.key !== " " || event.target !== held) return;
    event.preventDefault();
    clear(held);
  });
})();
