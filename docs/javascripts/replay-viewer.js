// The game pages' replay viewer: steps through a replay exported by `python -m fruit_envs.web.export`
// (pictures drawn by the game's picture module, from the referee's view or any seat's), with no server:
// the data is a script (replays/viewer/<game>/replay.js), so pages opened from disk work too.
"use strict";
(function () {
  function build(box) {
    const name = box.dataset.replay, data = (window.FRUIT_REPLAYS || {})[name];
    if (!data) { box.textContent = `(no replay data for ${name})`; return; }
    const base = box.dataset.base || "";
    let k = 0, timer = null;
    const el = (tag, props) => Object.assign(document.createElement(tag), props || {});
    const picture = el("img", { alt: "the table at this step, from the chosen view", className: "replay-picture" });
    const view = el("select", { ariaLabel: "whose view" });
    for (const p of data.perspectives) {
      view.append(new Option(p === "referee" ? "referee (everything)" : `player_${p} (${data.labels[Number(p)]}): what it knew`, p));
    }
    const back = el("button", { textContent: "◀", title: "previous (left arrow)" });
    const play = el("button", { textContent: "play", title: "play or pause" });
    const next = el("button", { textContent: "▶", title: "next (right arrow)" });
    const slider = el("input", { type: "range", min: "0", max: String(data.steps.length - 1), value: "0", ariaLabel: "step" });
    const info = el("span"), caption = el("ul", { className: "replay-caption" });
    function show(i) {
      k = Math.max(0, Math.min(data.steps.length - 1, i));
      slider.value = String(k);
      const p = view.value;
      picture.src = base + data.pictures[p][k];
      info.textContent = ` step ${data.steps[k]} of ${data.last}`;
      caption.replaceChildren(...data.captions[p][k].map((line) => el("li", { textContent: line })));
    }
    function playing(on) {
      clearInterval(timer);
      timer = null;
      play.textContent = on ? "pause" : "play";
      if (on) timer = setInterval(() => (k >= data.steps.length - 1 ? playing(false) : show(k + 1)), 900);
    }
    back.addEventListener("click", () => show(k - 1));
    next.addEventListener("click", () => show(k + 1));
    play.addEventListener("click", () => playing(!timer));
    slider.addEventListener("input", () => show(Number(slider.value)));
    view.addEventListener("change", () => show(k));
    box.tabIndex = 0;
    box.addEventListener("keydown", (event) => {
      if (event.key === "ArrowLeft") show(k - 1);
      else if (event.key === "ArrowRight") show(k + 1);
    });
    const controls = el("div", { className: "replay-controls" });
    controls.append(back, play, next, view, info);
    box.replaceChildren(picture, controls, slider, caption);
    show(0);
  }
  function start() { document.querySelectorAll(".replay-viewer[data-replay]").forEach(build); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})();
