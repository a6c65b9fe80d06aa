// Strategium Mini App: the campaign's map to tap, the side's orders, the board, the battles.
// Every request carries Telegram's initData; the bot decides everything (legal orders, who may
// do what), the page only shows what it is sent. Words come from the bot's catalogs (/api/campaigns).
"use strict";

const tg = (window.Telegram && window.Telegram.WebApp) || null;
const initData = tg ? tg.initData : "";
const state = { words: {}, language: "en", campaign: null, view: null, sector: null, tab: "orders",
  skew: 0, zoom: window.innerWidth < 520 ? 2 : 1, centred: false };
const ZOOMS = [1, 1.5, 2, 3];
const timings = [];
window.strategiumTimings = timings;

const $ = (id) => document.getElementById(id);
const w = (key) => state.words[key] || key;

function applyTheme() {
  if (!tg) return;
  const root = document.documentElement;
  root.classList.toggle("dark", tg.colorScheme === "dark");
  const params = tg.themeParams || {};
  const map = { bg_color: "--bg", text_color: "--text", hint_color: "--hint", button_color: "--button",
    button_text_color: "--button-text", secondary_bg_color: "--second" };
  for (const [key, name] of Object.entries(map)) {
    if (params[key]) root.style.setProperty(name, params[key]);
  }
}

async function api(path, body, anchor) {
  const options = { headers: { "X-Telegram-Init-Data": initData } };
  if (body !== undefined) {
    options.method = "POST";
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch("api/" + path, options);
  } catch (error) {
    toast(w("offline"), true, anchor);
    throw error;
  }
  const data = await response.json();
  if (!response.ok && !("view" in data)) {
    toast(data.message || String(response.status), true, anchor);
    throw new Error(data.message);
  }
  return data;
}

// What an action did, said in the page's flow next to where it was done (never a box over
// the page, which would cover a button): in the sheet, under «Ready», in the battle's card;
// anything else (no connection while opening) under the header.
let noticeTimer = null;
function toast(text, refused, anchor) {
  for (const old of document.querySelectorAll(".notice")) old.remove();
  clearTimeout(noticeTimer);
  const box = el("p", { class: "notice" + (refused ? " refused" : ""), role: "status", text });
  const place = (anchor && anchor()) || { inside: $("notices") };
  if (place.inside) place.inside.append(box);
  else place.after.after(box);
  noticeTimer = setTimeout(() => box.remove(), refused ? 8000 : 4000);
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "onclick") node.addEventListener("click", value);
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}

function showTab(tab) {
  state.tab = tab;
  for (const button of document.querySelectorAll("#tabs button")) {
    button.classList.toggle("active", button.dataset.tab === tab);
  }
  for (const panel of document.querySelectorAll("[data-panel]")) {
    panel.hidden = panel.dataset.panel !== tab;
  }
}

// ---- the deadline, counted down in the person's own time zone --------------------------------

function formatLeft(ms) {
  const minutes = Math.floor(ms / 60000);
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const mins = minutes % 60;
  const unit = (n, en, ru) => state.language === "ru" ? `${n} ${ru}` : `${n}${en}`;
  const parts = [];
  if (days) parts.push(unit(days, "d", "д"));
  if (days || hours) parts.push(unit(hours, "h", "ч"));
  parts.push(unit(mins, "m", "мин"));
  return parts.join(" ");
}

function tick() {
  const deadline = state.view && state.view.campaign.deadline;
  $("deadline").hidden = !deadline;
  if (!deadline) return;
  const at = new Date(deadline);
  const left = at.getTime() - (Date.now() + state.skew);
  // The moment as the chat says it (the campaign's zone, the bot's words), never the phone's.
  $("deadline-at").textContent = w("deadline") + ": " + state.view.campaign.deadline_at;
  $("countdown").textContent = left > 0 ? `${formatLeft(left)} ${w("left")}` : w("passed");
}

// ---- the screen ------------------------------------------------------------------------------

function render(view) {
  state.view = view;
  const campaign = view.campaign;
  state.skew = Date.parse(campaign.now) - Date.now();  // the bot's clock decides, not the phone's
  $("title").textContent = campaign.title;
  $("position").textContent = campaign.position;
  document.title = campaign.title;
  $("tabs").hidden = false;
  tick();
  renderMap(view);
  renderOrders(view.orders);
  $("board").textContent = view.board.text;
  renderBattles(view.battles);
  if (state.sector && view.orders && view.orders.editable) openSector(state.sector, null);
  else closeSheet();
}

function renderMap(view) {
  const box = $("map");
  if (!view.map) {
    box.innerHTML = "";
    box.append(el("p", { class: "hint", text: w("no_map") }));
    return;
  }
  const left = box.scrollLeft, top = box.scrollTop, shown = state.centred;
  box.innerHTML = view.map;
  if (!performance.getEntriesByName("strategium-map").length) performance.mark("strategium-map");
  const svg = box.querySelector("svg");
  if (svg) svg.setAttribute("aria-label", view.campaign.title);
  $("zoom").hidden = !svg;
  applyZoom(false);
  if (shown) {  // a redrawn map stays where the player panned it; the first opens centred
    box.scrollLeft = left;
    box.scrollTop = top;
  }
  markChosen();
}

// A phone's screen is narrow for a whole map: it opens larger (names about 20 px high on a
// 360-pixel screen), and pans by dragging inside its box; − and + change the size.
function applyZoom(keepCentre) {
  const box = $("map");
  const svg = box.querySelector("svg");
  if (!svg) return;
  const middle = keepCentre && box.scrollWidth ? {
    x: (box.scrollLeft + box.clientWidth / 2) / box.scrollWidth,
    y: (box.scrollTop + box.clientHeight / 2) / box.scrollHeight } : null;
  svg.style.width = `${state.zoom * 100}%`;
  $("zoom-out").disabled = state.zoom <= ZOOMS[0];
  $("zoom-in").disabled = state.zoom >= ZOOMS[ZOOMS.length - 1];
  const centre = middle || (!state.centred ? { x: 0.5, y: 0.5 } : null);
  if (centre) {
    state.centred = true;
    box.scrollLeft = centre.x * box.scrollWidth - box.clientWidth / 2;
    box.scrollTop = centre.y * box.scrollHeight - box.clientHeight / 2;
  }
}

function zoomBy(step) {
  const index = ZOOMS.indexOf(state.zoom) + step;
  if (index < 0 || index >= ZOOMS.length) return;
  state.zoom = ZOOMS[index];
  applyZoom(true);
}

function markChosen() {
  for (const node of document.querySelectorAll("#map .sector")) {
    node.classList.toggle("chosen", node.dataset.sector === state.sector);
  }
}

function renderOrders(orders) {
  const box = $("orders-box");
  box.hidden = !orders;
  $("hint").textContent = "";
  if (!orders) return;
  const status = $("status");
  status.textContent = orders.status;
  status.classList.toggle("ready", orders.ready);
  const lines = $("lines");
  lines.innerHTML = "";
  for (const line of orders.lines.length ? orders.lines : [w("no_orders")]) {
    lines.append(el("li", { text: line }));
  }
  const ready = $("ready");
  ready.hidden = !orders.editable;
  ready.textContent = orders.ready ? w("unready") : w("ready");
  if (orders.opens) $("hint").textContent = orders.opens;
  else $("hint").textContent = orders.editable ? w("tap") : w("view_only");
}

function closeSheet() {
  state.sector = null;
  $("sheet").hidden = true;
  $("sheet").innerHTML = "";
  markChosen();
}

async function openSector(sector, tappedAt) {
  const data = await api(`campaigns/${state.campaign}/sectors/${encodeURIComponent(sector)}`);
  const options = data.sector;
  state.sector = sector;
  markChosen();
  const sheet = $("sheet");
  // Redrawn after an order: what the order did stays said under the heading.
  const notice = sheet.querySelector(".notice");
  sheet.innerHTML = "";
  sheet.append(el("h2", { text: options.heading }));
  if (notice) sheet.append(notice);
  for (const line of options.lines) sheet.append(el("p", { text: line }));
  for (const move of options.moves) {
    let count = move.max;
    const output = el("output", { text: String(count) });
    const step = (delta) => () => {
      count = Math.min(move.max, Math.max(move.min, count + delta));
      output.textContent = String(count);
    };
    sheet.append(el("div", { class: "row", "data-move": move.to },
      el("span", { class: "label", text: `➡ ${move.label}` }),
      el("span", { class: "stepper" },
        el("button", { type: "button", onclick: step(-1), "aria-label": "−", text: "−" }), output,
        el("button", { type: "button", onclick: step(1), "aria-label": "+", text: "+" })),
      el("button", { type: "button", class: "action", text: w("move"),
        onclick: () => give({ kind: "move", sector, to: move.to, count }) })));
  }
  for (const attack of options.attacks) {
    sheet.append(el("div", { class: "row" }, el("button", { type: "button", class: "action",
      text: `⚔ ${w("attack")}: ${attack.name}`,
      onclick: () => give({ kind: "attack", sector, target: attack.target }) })));
  }
  if (options.reinforce) {
    sheet.append(el("div", { class: "row" }, el("button", { type: "button", class: "action",
      text: `🛰 ${w("reinforce")}`, onclick: () => give({ kind: "reinforce", sector }) })));
  }
  if (options.withdraw && options.armies > 0) {
    sheet.append(el("div", { class: "row" }, el("button", { type: "button", class: "action quiet",
      text: `🛡 ${w("withdraw")}`, onclick: () => give({ kind: "fortify", sector }) })));
  }
  sheet.append(el("div", { class: "row" }, el("button", { type: "button", class: "action quiet",
    text: w("close"), onclick: closeSheet })));
  sheet.hidden = false;
  if (tappedAt !== null) {
    requestAnimationFrame(() => timings.push({ kind: "sector", ms: performance.now() - tappedAt }));
  }
}

async function write(path, body, anchor) {
  const started = performance.now();
  const data = await api(`campaigns/${state.campaign}/${path}`, body, anchor);
  render(data.view);
  toast(data.message, !data.ok, anchor);
  requestAnimationFrame(() => timings.push({ kind: path, ms: performance.now() - started }));
  if (tg && tg.HapticFeedback) tg.HapticFeedback.notificationOccurred(data.ok ? "success" : "error");
  return data;
}

function give(order) {
  // Said in the sheet when it stays open, else above the orders.
  const anchor = () => ($("sheet").hidden ? { after: $("status") } : { after: $("sheet").firstChild });
  return write("orders", { turn: state.view.campaign.turn, order }, anchor);
}

function renderBattles(battles) {
  const box = $("battles");
  box.innerHTML = "";
  if (!battles.listed) {
    box.append(el("p", { class: "hint",
      text: battles.public_at ? w("list_at").replace("{moment}", battles.public_at) : w("no_list") }));
    return;
  }
  for (const battle of battles.battles) {
    const card = el("div", { class: "battle", "data-battle": String(battle.id) });
    for (const line of battle.lines) card.append(el("p", { text: line }));
    if (battle.choices.length) {
      // No outcome is chosen for the person: the list starts on a prompt, and the button
      // waits for a choice.
      const select = el("select", { "aria-label": w("report") });
      const prompt = el("option", { value: "", text: w("choose_outcome") });
      prompt.disabled = true;
      prompt.selected = true;
      select.append(prompt);
      battle.choices.forEach((choice, index) => select.append(el("option", { value: String(index), text: choice.label })));
      const send = el("button", { type: "button", class: "action", text: w("report"),
        onclick: () => {
          if (select.value === "") return;
          const choice = battle.choices[Number(select.value)];
          const anchor = () => ({ inside: document.querySelector(`.battle[data-battle="${battle.id}"]`) || $("battles") });
          write("results", { turn: battles.turn, battle: battle.id, outcome: choice.outcome,
            winner: choice.winner, defender: battle.defender }, anchor);
        } });
      send.disabled = true;
      select.addEventListener("change", () => { send.disabled = select.value === ""; });
      card.append(select, send);
    }
    box.append(card);
  }
  if (battles.legend && battles.legend.length) {
    const legend = el("div", { class: "legend" });
    for (const line of battles.legend) legend.append(el("p", { text: line }));
    box.append(legend);
  }
}

async function openCampaign(id) {
  state.campaign = id;
  $("choose").hidden = true;
  showTab(state.tab);
  render(await api(`campaigns/${id}`));
}

async function start() {
  applyTheme();
  if (tg) {
    tg.ready();
    tg.expand();
    if (tg.onEvent) tg.onEvent("themeChanged", applyTheme);
  }
  const listed = await api("campaigns");
  state.words = listed.words;
  state.language = listed.language;
  document.documentElement.lang = listed.language;
  for (const button of document.querySelectorAll("#tabs button")) {
    button.textContent = w(button.dataset.tab === "orders" ? "map" : button.dataset.tab);
    button.addEventListener("click", () => showTab(button.dataset.tab));
  }
  $("zoom-in").setAttribute("aria-label", w("zoom_in"));
  $("zoom-out").setAttribute("aria-label", w("zoom_out"));
  $("zoom-in").title = w("zoom_in");
  $("zoom-out").title = w("zoom_out");
  $("zoom-in").addEventListener("click", () => zoomBy(1));
  $("zoom-out").addEventListener("click", () => zoomBy(-1));
  $("map").addEventListener("click", (event) => {
    const sector = event.target.closest && event.target.closest("[data-sector]");
    if (!sector || !state.view || !state.view.orders || !state.view.orders.editable) return;
    openSector(sector.dataset.sector, performance.now());
  });
  $("ready").addEventListener("click", () => {
    const orders = state.view.orders;
    write("ready", { turn: state.view.campaign.turn, ready: !orders.ready, edits: orders.edits },
      () => ({ after: $("ready") }));
  });
  setInterval(tick, 1000);
  const wanted = new URLSearchParams(location.search).get("campaign")
    || (tg && tg.initDataUnsafe && tg.initDataUnsafe.start_param) || "";
  const campaigns = listed.campaigns;
  const chosen = campaigns.find((c) => String(c.id) === wanted.replace(/^c/, ""))
    || (campaigns.length === 1 ? campaigns[0] : null);
  if (chosen) return openCampaign(chosen.id);
  const choose = $("choose");
  choose.hidden = false;
  choose.append(el("h2", { text: campaigns.length ? w("choose") : w("none") }));
  for (const campaign of campaigns) {
    choose.append(el("button", { type: "button", class: "action quiet",
      text: `${campaign.title} — ${campaign.position}`, onclick: () => openCampaign(campaign.id) }));
  }
}

document.addEventListener("visibilitychange", () => {
  if (!document.hidden && state.campaign) api(`campaigns/${state.campaign}`).then(render);
});

start().catch(() => undefined);
