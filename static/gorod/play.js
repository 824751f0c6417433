/* The team phone: the level's task, the hints that appeared, countdowns to the next hint and to
 * the fail (server-given deadlines; when one passes, the state is fetched again), the code form
 * and the level history. A submission's client_id is kept until the server answered, so a resend
 * after a network failure is counted once. */
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var el = window.gorodEl, time = window.gorodTime, dur = window.gorodDuration;
  var page, current = null, pendingId = null, pendingText = null, refetchAt = 0;

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
    else if (game.status === "finished") { banner = T.finished; }
    else if (me.status === "finished") { banner = T.done; }
    else if (me.status === "disqualified") { banner = T.disqualified; }
    $("game-status").textContent = banner;
    $("game-status").hidden = !banner;
    $("level-box").hidden = !level;
    $("code-box").hidden = !level;
    if (level) {
      $("level-title").textContent = T.level + " " + level.number + " " + T.of + " " + level.of;
      $("level-task").textContent = level.task;
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
      var note = $("timeout-note");
      note.hidden = !level.timeout_until;
      note.textContent = level.timeout_until ? T.timeout + " " + time(level.timeout_until) : "";
    }
    var attempts = $("attempts");
    attempts.textContent = "";
    (me.attempts || []).forEach(function (a) {
      attempts.appendChild(el("li", {"class": "verdict-" + a.verdict},
        [el("span", {text: time(a.at) + " · " + a.level + " · "}), el("code", {text: a.text}),
         el("span", {text: " — " + (T[a.verdict] || a.verdict) + (a.sector && a.sector !== "code" ? " (" + a.sector + ")" : "")})]));
    });
    var history = $("history");
    history.textContent = "";
    (me.history || []).forEach(function (h) {
      history.appendChild(el("tr", {}, [el("td", {text: h.number}), el("td", {text: h.level}),
        el("td", {text: time(h.closed_at)}), el("td", {text: T[h.outcome] || h.outcome}),
        el("td", {text: dur(h.duration_s)})]));
    });
    tick();
  }

  function tick() {
    var level = current && current.me && current.me.level;
    if (!level) { return; }
    var toHint = page.secondsUntil(level.next_hint_at), toFail = page.secondsUntil(level.fail_at);
    $("next-hint-row").hidden = toHint == null;
    $("next-hint").textContent = dur(toHint);
    $("fail-in").textContent = dur(toFail);
    // A deadline passed: the state changed by the clock. The clock process pushes it; fetch it
    // too in case it is not running (the state is a function of the record and the time).
    var passed = (toHint != null && toHint < -1) || (toFail != null && toFail < -1);
    if (passed && Date.now() > refetchAt) {
      refetchAt = Date.now() + 5000;
      page.live.resync();
    }
  }

  function showResult(text, kind) {
    var box = $("code-result");
    box.textContent = text;
    box.dataset.kind = kind;
    box.hidden = !text;
  }

  function send(event) {
    event.preventDefault();
    var text = $("code-text").value;
    if (!text.trim()) { return; }
    if (pendingId === null || pendingText !== text) { pendingId = uuid4(); pendingText = text; }
    $("code-send").disabled = true;
    page.post(page.config.codeUrl, {text: text, client_id: pendingId}).then(function (r) {
      $("code-send").disabled = false;
      if (r.network) { showResult(page.text.retry, "error"); return; }
      pendingId = null; pendingText = null;
      if (r.ok) {
        showResult(r.data.message, r.data.verdict);
        $("code-text").value = "";
        page.showError("");
      } else {
        showResult("", "");
      }
      $("code-text").focus();
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    page = new window.GorodPage(render);
    page.start();
    $("code-form").addEventListener("submit", send);
    window.setInterval(tick, 1000);
  });
})();
