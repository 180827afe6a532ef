// fruit_envs web app: the start page, a seat's page and the replay viewer. No build step: plain scripts.
// Everything drawn comes from the server (the game's picture module); no game's rules or layout live here.
"use strict";

const $ = (id) => document.getElementById(id);
// an agent's move shows after this pause (`?delay=MS` on a seat's link changes it)
const AGENT_DELAY_MS = Number(new URLSearchParams(location.search).get("delay") ?? 600);
const POLL_MS = 1000; // a seat's page asks for news this often while others decide
const PREFETCH = 6; // the viewer loads the next steps (frame and picture) ahead, so stepping and playing do not wait
const SELECT_ARROW_PX = 28; // of a select's width, what its arrow and padding take from the option's text

async function api(path, body) {
  const options = body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  };
  const answer = await fetch(path, options);
  const data = await answer.json().catch(() => ({ error: `${answer.status} ${answer.statusText}` }));
  if (!answer.ok) throw new Error(data.error || `${answer.status}`);
  return data;
}

function showError(error) {
  $("error").textContent = error ? String(error.message || error) : "";
}

// --- the start page ------------------------------------------------------------------------------

async function startPage() {
  const { games, agents, note } = await api("/api/catalogue");
  for (const name of agents) $("agents").append(new Option(name));
  $("agents-note").textContent = note;
  for (const g of games) $("game").append(new Option(g.name, g.id));
  const current = () => games.find((g) => g.id === $("game").value);
  function drawSeats() {
    const seats = $("seats");
    seats.querySelectorAll("label").forEach((l) => l.remove());
    for (let k = 0; k < Number($("players").value); k++) {
      const label = document.createElement("label");
      label.textContent = `seat ${k} `;
      const input = document.createElement("input");
      input.setAttribute("list", "agents");
      input.name = `seat${k}`;
      input.value = k === 0 ? "human" : "greedy";
      input.addEventListener("input", offerHotSeat);
      label.append(input);
      seats.append(label);
    }
    offerHotSeat();
  }
  function humanSeats() {
    return [...$("seats").querySelectorAll("input")].filter((i) => i.value.trim() === "human").length;
  }
  function offerHotSeat() {
    // one screen for every person: offered where two or more seats are people
    $("hotseat-choice").hidden = humanSeats() < 2;
  }
  function drawGame() {
    const g = current();
    $("players").replaceChildren(...g.players.map((p) => new Option(String(p), String(p))));
    $("players").value = String(g.default_players);
    const box = $("options");
    box.querySelectorAll("label").forEach((l) => l.remove());
    for (const o of g.options) {
      const label = document.createElement("label");
      label.textContent = `${o.name} `;
      let input;
      if (o.choices) {
        input = document.createElement("select");
        for (const c of o.choices) input.append(new Option(String(c), JSON.stringify(c)));
        input.value = JSON.stringify(o.default);
      } else {
        input = document.createElement("input");
        input.value = JSON.stringify(o.default);
      }
      input.name = `option:${o.name}`;
      label.append(input);
      box.append(label);
    }
    drawSeats();
  }
  $("game").addEventListener("change", drawGame);
  $("players").addEventListener("change", drawSeats);
  drawGame();
  $("start").addEventListener("submit", async (event) => {
    event.preventDefault();
    showError(null);
    const options = {};
    for (const input of $("options").querySelectorAll("[name^='option:']")) {
      const name = input.name.slice(7);
      try { options[name] = JSON.parse(input.value); } catch { options[name] = input.value; }
    }
    const seats = [...$("seats").querySelectorAll("input")].map((i) => i.value.trim());
    try {
      const game = await api("/api/games", {
        game: $("game").value, players: Number($("players").value), seed: Number($("seed").value),
        options, seats,
      });
      if (game.seats.length === 1) { location.href = game.seats[0].url; return; }
      if (game.seats.length === 0) { location.href = game.watch; return; }
      if ($("hotseat").checked && !$("hotseat-choice").hidden) {
        // the seats' tokens travel in the fragment, which the browser never sends to a server
        const tokens = game.seats.map((s) => `${s.seat}.${s.url.split("/").pop()}`);
        location.href = `/hotseat/${game.id}#${tokens.join(",")}`;
        return;
      }
      const list = document.createElement("ul");
      for (const s of game.seats) {
        const item = document.createElement("li");
        const link = document.createElement("a");
        link.href = s.url; link.target = "_blank"; link.textContent = `seat ${s.seat}: open in its own tab`;
        item.append(link);
        list.append(item);
      }
      $("links").replaceChildren("One link per person: each sees only their own seat.", list);
    } catch (error) { showError(error); }
  });
}

// --- a seat's page, or every person's seat on one screen (hot seat) --------------------------------

function hotSeatTokens(gameId) {
  // seat -> token, from the link's fragment (then kept in this tab only and taken out of the address bar)
  const key = `fruit_envs_hotseat_${gameId}`;
  const given = location.hash.slice(1);
  if (given) {
    const tokens = {};
    for (const part of given.split(",")) {
      const [seat, token] = part.split(".");
      if (/^\d+$/.test(seat) && /^[A-Za-z0-9_-]+$/.test(token ?? "")) tokens[seat] = token;
    }
    sessionStorage.setItem(key, JSON.stringify(tokens));
    history.replaceState(null, "", location.pathname + location.search);
  }
  const kept = JSON.parse(sessionStorage.getItem(key) ?? "null");
  return kept && Object.keys(kept).length ? kept : null;
}

async function playPage() {
  const [, kind, gameId, token] = location.pathname.split("/");
  const hot = kind === "hotseat";
  const tokens = hot ? hotSeatTokens(gameId) : null;
  if (hot && !tokens) {
    throw new Error("this hot-seat page has lost its seats' links (they stay with the tab that opened them): " +
      "start the game again from the start page");
  }
  let current = hot ? Number(Object.keys(tokens)[0]) : null; // the seat whose view is on screen
  const base = () => `/api/games/${gameId}/${hot ? tokens[current] : token}`;
  let shown = -1, busy = false, focus = 0, covered = false, generation = 0;
  $("told").addEventListener("scroll", markEarlier);

  function draw(s) {
    if (s.step < shown) return; // an answer overtaken by a later one: steps only grow
    document.title = `${s.name}: seat ${s.seat}`;
    $("title").textContent = `${s.name} · ${hot ? "hot seat · now " : ""}seat ${s.seat} (${s.labels[s.seat]})`;
    if (s.step !== shown) {
      // with no pause between agents' moves, the table is drawn when the person is next asked
      if (AGENT_DELAY_MS > 0 || !s.waiting_for_agent || shown < 0) {
        $("picture").src = `${base()}/picture.png?step=${s.step}`;
        $("picture").hidden = false;
      }
      $("text").textContent = s.text;
      $("told").replaceChildren(...s.told.map((line) => Object.assign(document.createElement("li"), { textContent: line })));
      fitTold();
      shown = s.step;
      drawActions(s);
      document.body.dataset.shown = `${s.seat}:${s.step}`; // which seat's view of which step is on screen
    }
    if (s.done) {
      const o = s.outcome, scores = o.scores.map((v, k) => `seat ${k} (${s.labels[k]}) ${v}`).join(", ");
      const verdict = o.truncated ? "cut off by the engine's cap: nobody wins"
        : !hot && o.winners.includes(s.seat) ? (o.winners.length > 1 ? "you share the win" : "you win!")
        : `seat ${o.winners.join(", ")} won`;
      $("status").textContent = "game over";
      $("result").textContent = `${verdict} · ${scores}`;
      $("save").href = `${base()}/record.jsonl`;
      $("end").hidden = false;
    } else if (s.your_turn) {
      $("status").textContent = "your move: click one, or type its number (arrows and Enter work too)";
    } else {
      $("status").textContent = s.waiting_for_agent ? "an agent is deciding…" : "waiting for the other players…";
    }
  }

  function fitTold() {
    // whole lines only, the newest at the bottom: the box is as tall as the last lines that fit in it
    const list = $("told"), most = parseFloat(getComputedStyle(list).maxHeight);
    list.style.height = "";
    let height = 0;
    for (const item of [...list.children].reverse()) {
      const next = height + item.getBoundingClientRect().height;
      if (next > most) break;
      height = next;
    }
    if (list.scrollHeight > most) list.style.height = `${height}px`;
    list.scrollTop = list.scrollHeight;
    markEarlier();
  }

  function markEarlier() {
    // a cue above the box while lines are scrolled out of sight above it
    const list = $("told");
    const above = [...list.children].filter((item) => item.offsetTop < list.scrollTop - 0.5).length;
    $("told-more").textContent = `▲ ${above} earlier line${above === 1 ? "" : "s"} above: scroll up`;
    $("told-more").classList.toggle("showing", above > 0);
  }

  function drawActions(s) {
    const box = $("actions");
    box.replaceChildren(...s.legal.map((a, i) => {
      const button = document.createElement("button");
      button.textContent = `${i + 1}. ${a.name}`;
      button.dataset.action = a.action;
      button.setAttribute("role", "option");
      button.addEventListener("click", () => choose(a.action));
      return button;
    }));
    focus = 0;
    if (s.legal.length) box.children[0].focus();
  }

  function handOver(s) {
    // hot seat: another person's turn covers the screen (nothing private stays on it) until they press on
    if (!hot || s.done || s.to_move === null || s.to_move === current || !(String(s.to_move) in tokens)) return false;
    cover(s.to_move, s);
    return true;
  }

  function cover(seat, s) {
    generation++; // answers asked for before now are not drawn
    covered = true;
    clearTimeout(timer);
    $("picture").removeAttribute("src");
    $("picture").hidden = true;
    for (const id of ["text", "status", "result", "error"]) $(id).textContent = "";
    $("told").replaceChildren();
    $("told").style.height = "";
    $("told-more").classList.remove("showing");
    $("actions").replaceChildren();
    $("end").hidden = true;
    $("seat-view").hidden = true;
    document.title = `${s.name}: hot seat`;
    $("title").textContent = `${s.name} · hot seat`;
    $("cover-text").textContent = `Pass the device to seat ${seat}: player_${seat} (${s.labels[seat]}). ` +
      "Press continue when only they can see the screen.";
    $("cover-go").textContent = `continue as player_${seat}`;
    $("cover-go").dataset.seat = String(seat);
    $("cover").hidden = false;
    $("cover-go").focus();
    document.body.dataset.shown = `cover:${seat}`;
  }

  $("cover-go").addEventListener("click", () => {
    current = Number($("cover-go").dataset.seat);
    generation++;
    covered = false;
    shown = -1;
    $("cover").hidden = true;
    $("seat-view").hidden = false;
    tick();
  });

  async function choose(action) {
    if (busy || covered) return;
    busy = true;
    showError(null);
    const asked = generation;
    try {
      const s = await api(`${base()}/move`, { action });
      if (asked === generation && !handOver(s)) draw(s);
    } catch (error) { showError(error); }
    busy = false;
    tick();
  }

  document.addEventListener("keydown", (event) => {
    const buttons = [...$("actions").children];
    if (!buttons.length || event.target.tagName === "INPUT") return;
    if (/^[1-9]$/.test(event.key) && Number(event.key) <= buttons.length) {
      buttons[Number(event.key) - 1].click();
    } else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      focus = (focus + (event.key === "ArrowDown" ? 1 : buttons.length - 1)) % buttons.length;
      buttons[focus].focus();
      event.preventDefault();
    }
  });

  $("watch").addEventListener("click", async (event) => {
    event.preventDefault();
    try { location.href = `/replay#${(await api(`${base()}/replay`)).replay}`; } catch (error) { showError(error); }
  });

  let timer = null;
  async function tick() {
    clearTimeout(timer);
    if (busy || covered) return;
    const asked = generation;
    try {
      let s = await api(base());
      if (asked !== generation) return;
      if (handOver(s)) return;
      draw(s);
      if (s.done) return;
      if (s.waiting_for_agent) {
        await new Promise((r) => setTimeout(r, AGENT_DELAY_MS));
        if (asked !== generation) return;
        s = await api(`${base()}/advance`, {});
        if (asked !== generation) return;
        if (handOver(s)) return;
        draw(s);
        if (s.done) return;
        timer = setTimeout(tick, 0);
        return;
      }
    } catch (error) { showError(error); }
    timer = setTimeout(tick, POLL_MS);
  }

  if (hot) {
    // the screen starts covered: whoever sits at it first presses on as the seat to move
    const s = await api(base());
    if (s.done) { tick(); return; }
    const first = String(s.to_move) in tokens ? s.to_move : current;
    cover(first, s);
    return;
  }
  tick();
}

// --- the replay viewer ---------------------------------------------------------------------------

function cut(label, n) {
  return label.length > n ? `${label.slice(0, n - 1)}…` : label;
}

function fitted(select, make) {
  // the longest of make(n) (its agents' labels cut to n characters) that fits the select's width
  const measure = (fitted.context ??= document.createElement("canvas").getContext("2d"));
  measure.font = getComputedStyle(select).font;
  const room = select.clientWidth - SELECT_ARROW_PX;
  for (let n = 40; n > 4; n--) if (measure.measureText(make(n)).width <= room) return make(n);
  return make(4);
}

function fittedOption(select, make, value, title) {
  // in full in its tooltip; `refit` fits it again when the select's width changes
  return Object.assign(new Option(fitted(select, make), value), { title, make });
}

function refit(...selects) {
  for (const select of selects) for (const option of select.options) if (option.make) option.text = fitted(select, option.make);
}

async function replayPage() {
  let entry = null, step = 0, playing = false, plays = 0, timer = null;
  const loaded = new Map(); // "step:seat" -> the promise of that step's frame and decoded picture
  const seat = () => $("perspective").value;

  async function open(id) {
    entry = await api(`/api/replays/${encodeURIComponent(id)}`);
    loaded.clear();
    location.hash = id;
    $("title").textContent = `Replay: ${entry.name}, ${entry.players} players (${entry.source}, game ${entry.index})`;
    $("perspective").replaceChildren(new Option("referee: everything", "referee"),
      ...entry.labels.map((l, k) => fittedOption($("perspective"), (n) => `seat ${k} (${cut(l, n)}): what it knew`,
        String(k), `seat ${k} (${l}): the table and captions as it knew them`)));
    $("takeover").replaceChildren(...entry.labels.map((l, k) =>
      fittedOption($("takeover"), (n) => `seat ${k} (${cut(l, n)})`, String(k), `seat ${k} (${l})`)));
    $("slider").max = String(entry.steps);
    await go(0);
    refit($("which"), $("perspective"), $("takeover")); // the table drawn, the side has its width
  }

  function load(t, view) {
    // a step's frame (caption, text, reasons) and its picture, decoded, asked for once
    const key = `${t}:${view}`;
    if (!loaded.has(key)) {
      const query = `step=${t}&seat=${view}`;
      const url = `/api/replays/${entry.id}/picture.png?${query}`;
      const picture = new Image();
      picture.src = url;
      const both = Promise.all([api(`/api/replays/${entry.id}/frame?${query}`), picture.decode()]);
      const ready = both.then(([frame]) => ({ frame, url, picture }));
      ready.catch(() => loaded.delete(key)); // asked again next time
      loaded.set(key, ready);
    }
    return loaded.get(key);
  }

  function ahead(t, view) {
    for (let next = t + 1; next <= Math.min(entry.steps, t + PREFETCH); next++) load(next, view).catch(() => {});
    for (const key of loaded.keys()) { // keep the steps near this one
      const [s, v] = key.split(":");
      if (v !== view || Number(s) < t - PREFETCH || Number(s) > t + PREFETCH) loaded.delete(key);
    }
  }

  async function go(t) {
    if (!entry) return;
    step = Math.max(0, Math.min(entry.steps, t));
    $("slider").value = String(step);
    const wanted = step, view = seat();
    const shown = load(wanted, view);
    ahead(wanted, view);
    try {
      const { frame, url } = await shown;
      if (wanted !== step || view !== seat()) return; // overtaken by another step or view
      $("picture").src = url; // decoded already: shown at once
      $("picture").hidden = false;
      $("text").textContent = frame.text;
      $("caption").replaceChildren(...frame.caption.map((l) => Object.assign(document.createElement("li"), { textContent: l })));
      $("stepinfo").textContent = `step ${step} of ${entry.steps}`;
      drawDecision(frame.decision);
      showError(null);
    } catch (error) { showError(error); }
  }

  function drawDecision(d) {
    // the next decision's reasons, as its agent gives them (shown to the referee and the mover only)
    const box = $("decision");
    if (!d) { box.replaceChildren(); return; }
    const head = document.createElement("h3");
    head.textContent = `player_${d.seat} (${entry.labels[d.seat]}) decides next` +
      (d.value === null ? "" : `: value ${d.value.toFixed(3)}`);
    const table = document.createElement("table");
    table.className = "decision";
    const top = Math.max(...d.actions.map((a) => Math.abs(a.number ?? 0)), 1e-9);
    for (const a of d.actions.slice(0, 8)) {
      const row = table.insertRow();
      row.insertCell().textContent = a.name;
      row.insertCell().textContent = a.number === null ? "not tried" : String(a.number);
      const bar = row.insertCell().appendChild(document.createElement("span"));
      bar.className = "bar";
      bar.style.width = `${Math.round(60 * Math.abs(a.number ?? 0) / top)}px`;
    }
    const note = document.createElement("p");
    note.textContent = `${d.kind} of each legal action${d.actions.length > 8 ? " (the best 8)" : ""}, ` +
      (d.recorded ? "as the agent gave them when it decided" : "recomputed now by the recorded agent");
    box.replaceChildren(head, note, table);
  }

  function play(on) {
    // each step waits its turn (the speed's pause; fastest: the next frame the browser paints) and for its frame
    // and picture, the next ones loading meanwhile
    clearTimeout(timer);
    const run = ++plays; // a loop left over from an earlier play stops at its next step
    playing = on;
    $("playpause").textContent = on ? "pause" : "play";
    if (!on) return;
    async function next() {
      if (run !== plays) return;
      if (step >= entry.steps) { play(false); return; }
      const began = performance.now();
      await go(step + 1);
      if (run !== plays) return;
      const rest = Number($("speed").value) - (performance.now() - began);
      if (rest > 0) timer = setTimeout(next, rest);
      else requestAnimationFrame(next);
    }
    requestAnimationFrame(next);
  }

  $("branch").addEventListener("click", async () => {
    try {
      const made = await api(`/api/replays/${entry.id}/branch`, { step, seat: Number($("takeover").value) });
      if (!made.notes.length) { location.href = made.url; return; }
      const link = Object.assign(document.createElement("a"), { href: made.url, textContent: "your seat" });
      $("branched").replaceChildren(`${made.notes.join("; ")}. Go to `, link);
    } catch (error) { showError(error); }
  });
  $("back").addEventListener("click", () => go(step - 1));
  $("forward").addEventListener("click", () => go(step + 1));
  $("playpause").addEventListener("click", () => play(!playing));
  $("speed").addEventListener("change", () => { if (playing) play(true); });
  $("slider").addEventListener("input", () => go(Number($("slider").value)));
  $("perspective").addEventListener("change", () => go(step));
  $("which").addEventListener("change", () => open($("which").value));
  addEventListener("resize", () => refit($("which"), $("perspective"), $("takeover")));
  document.addEventListener("keydown", (event) => {
    if (!entry || event.target.tagName === "SELECT" || event.target.tagName === "INPUT") return;
    if (event.key === "ArrowLeft") go(step - 1);
    else if (event.key === "ArrowRight") go(step + 1);
    else if (event.key === " ") { play(!playing); event.preventDefault(); }
  });

  const { replays } = await api("/api/replays");
  const wanted = location.hash.slice(1);
  if (!replays.length && !wanted) { $("empty").hidden = false; return; }
  $("viewer").hidden = false; // laid out, so the options are fitted to the selects' widths
  const groups = new Map(); // one group per record file, and one for the games played here
  for (const r of replays) {
    if (!groups.has(r.source)) {
      const group = document.createElement("optgroup");
      group.label = r.source === "played here" ? "games finished here" : r.source;
      groups.set(r.source, group);
    }
    groups.get(r.source).append(fittedOption($("which"), (n) => `#${r.index} ${r.name}: ${r.labels.map((l) => cut(l, n)).join(" v ")}`,
      r.id, `${r.source} #${r.index}: ${r.name}, ${r.labels.join(" v ")}`));
  }
  $("which").replaceChildren(...groups.values());
  if (wanted) {
    if (![...$("which").options].some((o) => o.value === wanted)) $("which").append(new Option("this game", wanted));
    $("which").value = wanted;
    await open(wanted);
  } else {
    await open(replays[0].id);
  }
}

const pages = { start: startPage, play: playPage, replay: replayPage };
pages[document.body.dataset.page]().catch(showError);
