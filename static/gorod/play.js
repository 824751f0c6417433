/* The team phone: the level's task, the hints that appeared, countdowns to the next hint and to
 * the fail (server-given deadlines; when one passes, the state is fetched again), the code form
 * and the level history, the team's own result. A submission's client_id is kept until the server
 * answered, so a resend after a network failure is counted once. A brute-force refusal carries
 * its wait: the form stays disabled and counts it down. A new level or hint vibrates and beeps
 * where the browser allows it, and so does a new message or bonus hint of the organizer's; the
 * phone tells the server which of those it showed (one small post). */
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var el = window.gorodEl, time = window.gorodTime, dur = window.gorodDuration;
  var page, current = null, pendingId = null, pendingText = null, refetchAt = 0;
  var waitUntil = 0, resultLevel = null, seen = null, audio = null;
  var notes = null, marking = {}, checkinAlerted = null;

  // Browsers let a page play sound only after a user gesture: the first touch or key opens it.
  function unlockAudio() {
    var Ctx = window.AudioContext || window.webkitAudioContext;
    if (audio || !Ctx) { return; }
    try { audio = new Ctx(); } catch (e) { audio = null; }
  }

  function alertTeam() {
    if (navigator.vibrate) { try { navigator.vibrate([200, 100, 200]); } catch (e) { /* refused */ } }
    if (!audio) { return; }
    try {
      var osc = audio.createOscillator(), gain = audio.createGain(), t = audio.currentTime;
      osc.frequency.value = 880;
      gain.gain.setValueAtTime(0.2, t);
      gain.gain.exponentialRampToValueAtTime(0.001, t + 0.25);
      osc.connect(gain); gain.connect(audio.destination);
      osc.start(t); osc.stop(t + 0.25);
    } catch (e) { /* no sound: the screen shows it anyway */ }
    document.body.dataset.alerts = String(Number(document.body.dataset.alerts || 0) + 1);
  }

  // What is new to the team: a level it had not seen, a hint more on the same level, or a
  // message or bonus hint of the organizer's it had not been shown.
  function noticeNews(level, ids) {
    var now = level ? level.label + "#" + level.hints.length : "none";
    var fresh = notes !== null && ids.some(function (id) { return !notes[id]; });
    if ((seen !== null && level && now !== seen) || fresh) { alertTeam(); }
    seen = now;
    notes = {};
    ids.forEach(function (id) { notes[id] = true; });
  }

  function shownIds(state) {
    var level = state.me && state.me.level, inbox = state.messages || {};
    return (inbox.items || []).map(function (m) { return m.id; })
      .concat(level ? (level.bonus_hints || []).map(function (h) { return h.id; }) : []);
  }

  function renderMessages(inbox) {
    var T = page.text, items = (inbox && inbox.items) || [], latest = items[0];
    $("messages-box").hidden = !latest;
    if (!latest) { return; }
    $("message-at").textContent = time(latest.at);
    $("message-text").textContent = latest.text;
    var list = $("messages-list");
    list.textContent = "";
    items.forEach(function (m) {
      list.appendChild(el("li", {"data-message": m.id}, [el("strong", {text: time(m.at) + " "}), el("span", {text: m.text})]));
    });
    $("messages-more-label").textContent = fill(T.allMessages, {n: items.length});
    var clipped = $("message-latest").scrollHeight > $("message-latest").clientHeight + 1;
    $("messages-more").hidden = items.length < 2 && !clipped;
  }

  // Shown on a visible screen: the server keeps the first moment (a repeat changes nothing).
  function markSeen() {
    if (!current || document.hidden) { return; }
    var done = (current.messages && current.messages.seen) || [];
    var ids = shownIds(current).filter(function (id) { return done.indexOf(id) < 0 && !marking[id]; });
    if (!ids.length) { return; }
    ids.forEach(function (id) { marking[id] = true; });
    page.post(page.config.seenUrl, {messages: ids}).then(function (r) {
      if (!r.ok) { ids.forEach(function (id) { delete marking[id]; }); }
    });
  }

  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, function (m, key) { return values[key]; });
  }

  function renderResult(me, game) {
    var T = page.text, box = $("result-box");
    box.hidden = me.levels_closed == null;
    if (box.hidden) { return; }
    $("me-closed").textContent = me.levels_closed;
    var perLevel = me.failed_levels ? Math.round(me.failed_penalty_s / me.failed_levels / 60) : 0;
    $("me-failed").textContent = me.failed_levels ? fill(T.failedN, {n: me.failed_levels, min: perLevel}) + " = " + dur(me.failed_penalty_s) : "0";
    $("me-penalty").textContent = dur(me.penalty_s);
    $("me-bonus").textContent = dur(me.bonus_s);
    $("total-row").hidden = me.total_s == null;
    $("me-total").textContent = dur(me.total_s);
    var over = game.status === "finished";
    $("place-row").hidden = !over;
    $("me-place").textContent = me.place == null ? T.noPlace : fill(T.place, {place: me.place, teams: me.teams});
    $("total-later").hidden = me.total_s != null && over;
  }

  function uuid4() {
    var b = new Uint8Array(16);
    window.crypto.getRandomValues(b);
    b[6] = (b[6] & 0x0f) | 0x40; b[8] = (b[8] & 0x3f) | 0x80;
    var h = Array.prototype.map.call(b, function (x) { return (x + 256).toString(16).slice(1); }).join("");
    return h.slice(0, 8) + "-" + h.slice(8, 12) + "-" + h.slice(12, 16) + "-" + h.slice(16, 20) + "-" + h.slice(20);
  }

  function render(state) {
    current = state;
    var T = page.text, me = state.me || {}, level = me.level, game = state.game;
    var banner = "";
    if (game.status === "setup") { banner = T.setup; }
    else if (game.status === "running" && game.paused_since) { banner = T.paused + " " + time(game.paused_since); }
    else if (me.status === "disqualified") { banner = T.disqualified; }
    else if (game.status === "finished") { banner = me.status === "finished" ? T.finishedDone : me.status === "stopped" ? T.stopped : T.finished; }
    else if (me.status === "finished") { banner = T.done; }
    $("game-status").textContent = banner;
    $("game-status").hidden = !banner;
    $("game-status").dataset.paused = game.paused_since ? "true" : "false";
    $("level-box").hidden = !level;
    $("code-box").hidden = !level;
    // A verdict belongs to the level it was given on ("sector found, 1 left"): gone once the
    // level changed.
    if (resultLevel !== null && (!level || level.label !== resultLevel)) { showResult("", ""); }
    noticeNews(level, shownIds(state));
    renderResult(me, game);
    if (level) {
      $("level-title").textContent = T.level + " " + level.number + " " + T.of + " " + level.of;
      $("level-task").textContent = level.task;
      $("level-danger").hidden = !level.danger;
      $("level-danger").textContent = level.danger ? T.danger + ": " + level.danger_text : "";
      var images = $("level-images"), signature = (level.images || []).join("|");
      if (images.dataset.signature !== signature) {
        images.dataset.signature = signature;
        images.textContent = "";
        (level.images || []).forEach(function (src) { images.appendChild(el("img", {src: src, alt: ""})); });
      }
      var sectors = $("level-sectors");
      sectors.textContent = "";
      if (level.sectors.length > 1) {
        level.sectors.forEach(function (s) {
          sectors.appendChild(el("li", {"class": s.found ? "found" : "", text: s.name + ": " + (s.found ? T.found : T.notFound)}));
        });
      }
      var hints = $("level-hints");
      hints.textContent = "";
      level.hints.forEach(function (h) {
        hints.appendChild(el("li", {"data-hint": h.n}, [el("strong", {text: T.hint + " " + h.n + " (" + time(h.at) + "): "}), el("span", {text: h.text})]));
      });
      (level.bonus_hints || []).forEach(function (h) {
        hints.appendChild(el("li", {"class": "bonus", "data-bonus": h.id}, [el("strong", {text: T.bonusHint + " (" + time(h.at) + "): "}), el("span", {text: h.text})]));
      });
      var note = $("timeout-note");
      note.hidden = !level.timeout_until;
      note.textContent = level.timeout_until ? T.timeout + " " + time(level.timeout_until) : "";
    }
    renderPhoto(level);
    renderTimeout(me, level, game);
    $("safety-box").hidden = !state.safety || game.status !== "running";
    var attempts = $("attempts");
    attempts.textContent = "";
    (me.attempts || []).forEach(function (a) {
      attempts.appendChild(el("li", {"class": "verdict-" + a.verdict},
        // An accepted photo is stored as the level's closing attempt, sector "photo".
        [el("span", {text: time(a.at) + " · " + a.level + " · "}), a.sector === "photo" ? el("span", {text: T.photo}) : el("code", {text: a.text}),
         el("span", {text: " — " + (T[a.verdict] || a.verdict) + (a.sector && a.sector !== "code" && a.sector !== "photo" ? " (" + a.sector + ")" : "")})]));
    });
    var history = $("history");
    history.textContent = "";
    (me.history || []).forEach(function (h) {
      history.appendChild(el("tr", {}, [el("td", {text: h.number}), el("td", {text: h.level}),
        el("td", {text: time(h.closed_at)}), el("td", {text: T[h.outcome] || h.outcome}),
        el("td", {text: dur(h.duration_s)})]));
    });
    tick();
    // The boxes show once drawn (gorod.css): nothing visible moves when the first state fills them.
    $("gorod-play").dataset.ready = "true";
    // After it shows (the same task, before a paint): is the latest message cut to its lines?
    renderMessages(state.messages);
    markSeen();
  }

  function statusLine(box, text, kind) {
    box.textContent = text || "";
    box.dataset.kind = kind || "";
    box.hidden = !text;
  }

  function renderPhoto(level) {
    var T = page.text, photos = level && level.photo_proof ? level.photos || [] : [];
    $("photo-box").hidden = !(level && level.photo_proof);
    var last = photos[0], pending = last && last.status === "pending";
    $("photo-send").disabled = !!pending || paused();
    if (!last) { statusLine($("photo-status"), ""); return; }
    var text = {pending: T.photoPending, rejected: T.photoRejected, accepted: T.photoAccepted}[last.status];
    statusLine($("photo-status"), text + (last.answer ? " — " + last.answer : ""), last.status === "rejected" ? "wrong" : "accepted");
  }

  function renderTimeout(me, level, game) {
    var T = page.text, asked = me.timeout_request;
    var open = game.status === "running" && !game.paused_since && !!level && !me.timeout_taken && !(asked && asked.status === "pending");
    $("timeout-box").hidden = game.status !== "running" || (!level && !asked);
    $("timeout-form").hidden = !open;
    if (!asked) { statusLine($("timeout-status"), ""); return; }
    var text = {pending: T.timeoutPending, confirmed: T.timeoutConfirmed, refused: T.timeoutRefused}[asked.status];
    statusLine($("timeout-status"), text + " (" + fill(T.minutes, {n: asked.minutes}) + ")" + (asked.answer ? " — " + asked.answer : ""),
               asked.status === "refused" ? "wrong" : "accepted");
  }

  function askTimeout(event) {
    event.preventDefault();
    page.post(page.config.timeoutUrl, {minutes: parseFloat($("timeout-minutes").value),
                                       reason: $("timeout-reason").value});
  }

  // The photo goes as a form upload (the one multipart request of the phone); the answer is
  // the team's state like every other post.
  function sendPhoto(event) {
    event.preventDefault();
    var file = $("photo-file").files[0];
    if (!file) { page.showError(page.text.photoChoose); return; }
    var body = new FormData();
    body.append("photo", file);
    $("photo-send").disabled = true;
    page.post(page.config.photoUrl, body).then(function (result) {
      $("photo-send").disabled = false;
      if (result.network) { page.showError(page.text.retry); }
      if (result.ok) { $("photo-file").value = ""; }
    });
  }

  function paused() {
    return !!(current && current.game && current.game.paused_since);
  }

  function waitTick() {
    var left = Math.ceil((waitUntil - Date.now()) / 1000), waiting = left > 0;
    $("code-wait").hidden = !waiting;
    $("code-wait").textContent = waiting ? page.text.wait + " " + dur(left) : "";
    // While the game is paused no code is accepted: the field waits with the banner above.
    $("code-text").disabled = waiting || paused();
    $("code-send").disabled = waiting || sending || paused();
    if (!waiting && waitUntil) { waitUntil = 0; page.showError(""); $("code-text").focus(); }
  }

  // The safety check-in on a dangerous level: the time left until it is due; once due the
  // phone vibrates and beeps (once per due moment), like a new hint.
  function checkinTick() {
    var safety = current && current.safety;
    if (!safety || !current.game || current.game.paused_since) { return; }
    var left = page.secondsLeft(safety.due_at, current.game), due = safety.overdue || (left != null && left <= 0);
    $("checkin-due").textContent = due ? page.text.checkinOverdue : page.text.checkinIn + " " + dur(left);
    $("safety-box").dataset.overdue = due ? "true" : "false";
    if (due && checkinAlerted !== safety.due_at) { checkinAlerted = safety.due_at; alertTeam(); }
  }

  function checkIn() {
    $("checkin-send").disabled = true;
    page.post(page.config.checkinUrl, {}).then(function (r) {
      $("checkin-send").disabled = false;
      if (r.network) { page.showError(page.text.retry); }
    });
  }

  function tick() {
    waitTick();
    checkinTick();
    var level = current && current.me && current.me.level;
    if (!level) { return; }
    var game = current.game;
    var toHint = page.secondsLeft(level.next_hint_at, game), toFail = page.secondsLeft(level.fail_at, game);
    $("next-hint-row").hidden = toHint == null;
    $("next-hint").textContent = dur(toHint);
    $("fail-in").textContent = dur(toFail);
    // A deadline passed: the state changed by the clock. The clock process pushes it; fetch it
    // too in case it is not running (the state is a function of the record and the time).
    var passed = !game.paused_since && ((toHint != null && toHint < -1) || (toFail != null && toFail < -1));
    if (passed && Date.now() > refetchAt) {
      refetchAt = Date.now() + 5000;
      page.live.resync();
    }
  }

  var sending = false;

  function showResult(text, kind) {
    var box = $("code-result");
    var level = current && current.me && current.me.level;
    resultLevel = text && level ? level.label : null;
    box.textContent = text;
    box.dataset.kind = kind;
    box.hidden = !text;
  }

  function send(event) {
    event.preventDefault();
    var text = $("code-text").value;
    if (!text.trim()) { return; }
    if (pendingId === null || pendingText !== text) { pendingId = uuid4(); pendingText = text; }
    sending = true;
    $("code-send").disabled = true;
    page.post(page.config.codeUrl, {text: text, client_id: pendingId}).then(function (r) {
      sending = false;
      $("code-send").disabled = false;
      if (r.network) { showResult(page.text.retry, "error"); return; }
      pendingId = null; pendingText = null;
      if (r.ok) {
        showResult(r.data.message, r.data.verdict);
        $("code-text").value = "";
        page.showError("");
      } else {
        showResult("", "");
        if (r.data && r.data.wait_s) {
          // The refused try is on the server's log; the server counts only wrong codes, so
          // waiting out these seconds is enough.
          waitUntil = Date.now() + r.data.wait_s * 1000;
          page.showError("");  // the countdown below the form says it, and stays current
          page.live.resync();
        }
      }
      waitTick();
      if (!waitUntil && !paused()) { $("code-text").focus(); }
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    page = new window.GorodPage(render);
    page.start();
    $("code-form").addEventListener("submit", send);
    $("timeout-form").addEventListener("submit", askTimeout);
    $("photo-form").addEventListener("submit", sendPhoto);
    $("checkin-send").addEventListener("click", checkIn);
    ["pointerdown", "keydown", "touchstart"].forEach(function (name) {
      document.addEventListener(name, unlockAudio, {passive: true});
    });
    window.setInterval(tick, 1000);
    document.addEventListener("visibilitychange", markSeen);
  });
})();
