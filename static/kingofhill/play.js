/* The team phone: step, points, right, what the team may declare (the engine's answer, with
 * reasons), and its one answer per question. The answer's client_id is generated once per
 * question and kept in localStorage, so a resend after a network failure or a reload can
 * never create a second answer. */
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var page;
  var current = null;  // the last state rendered

  function storageKey(number) { return "koth:" + page.config.game + ":q" + number; }

  function uuid4() {
    // crypto.randomUUID needs a secure context; a club's LAN is often plain http.
    var b = new Uint8Array(16);
    window.crypto.getRandomValues(b);
    b[6] = (b[6] & 0x0f) | 0x40; b[8] = (b[8] & 0x3f) | 0x80;
    var h = Array.prototype.map.call(b, function (x) { return (x + 256).toString(16).slice(1); }).join("");
    return h.slice(0, 8) + "-" + h.slice(8, 12) + "-" + h.slice(12, 16) + "-" + h.slice(16, 20) + "-" + h.slice(20);
  }

  function pending(number) {
    try { return JSON.parse(window.localStorage.getItem(storageKey(number)) || "null"); }
    catch (e) { return null; }
  }

  function projection(p) {
    if (!p) { return ""; }
    var T = page.text;
    return T.ifCorrect + ": " + T.step + " " + p.correct.step + ", +" + p.correct.points + " · " +
      T.ifWrong + ": " + T.step + " " + p.incorrect.step + ", +" + p.incorrect.points;
  }

  function render(state) {
    current = state;
    var T = page.text, me = state.me || {}, q = state.question, board = state.board;
    $("me-colour").style.background = me.colour || "transparent";
    $("me-place").textContent = me.place || "–";
    $("me-step").textContent = me.step;
    $("me-points").textContent = me.points;
    $("me-right").textContent = me.is_king ? "–" : (me.revolution_right ? T.yes : T.no);
    var banner = $("king-banner");
    if (board.finished) {
      banner.textContent = T.finished + " " + board.winner; banner.hidden = false;
    } else if (me.is_king) {
      banner.textContent = T.youKing; banner.hidden = false;
    } else if (board.king) {
      banner.textContent = T.king + " " + board.king; banner.hidden = false;
    } else { banner.hidden = true; }

    var phase = q ? q.phase : null;
    $("question-title").textContent = q && state.game.status !== "setup"
      ? T.question + " " + q.number + (q.partner ? " (" + T.partner + ")" : "") : T.waiting;
    $("question-status").textContent = state.game.status === "finished" ? "" :
      (phase ? T[phase] : "");
    document.body.dataset.phase = phase || "setup";

    // Declarations: exactly what the engine allows now; the rest disabled with its reason.
    var allowed = me.allowed || {};
    ["jump", "revolution"].forEach(function (kind) {
      var button = $("declare-" + kind);
      button.disabled = !allowed[kind];
      button.setAttribute("aria-pressed", String(!!(me.declaration && me.declaration.kind === kind)));
      $(kind + "-reason").textContent = allowed[kind] ? "" : page.reason(allowed[kind + "_reason"]);
      $(kind + "-projection").textContent = allowed[kind] ? projection((me.projection || {})[kind]) : "";
    });
    $("declare-none").disabled = !(me.declaration && phase === "declaring");
    $("ordinary-projection").textContent = projection((me.projection || {}).ordinary);
    var d = me.declaration;
    $("my-declaration").textContent = d ? T.declared + " " + T[d.kind] +
      (d.counts ? "" : " — " + T.ignored + " " + page.reason(d.reason)) : T.declared + " " + T.ordinary;

    // The answer: one per question, confirmed with the server's arrival time.
    var answer = me.answer, confirm = $("answer-confirm");
    var open = phase === "answering" && !answer;
    $("answer-text").disabled = !open;
    $("answer-send").disabled = !open;
    if (answer) {
      var verdict = answer.verdict === true ? " — " + T.correct : answer.verdict === false ? " — " + T.incorrect : "";
      confirm.textContent = T.sent + " " + window.kothTime(answer.at) + ": «" + answer.text + "»" + verdict;
      confirm.hidden = false;
      $("answer-text").value = "";
    } else if (q && pending(q.number) && open) {
      confirm.textContent = T.retry; confirm.hidden = false;
      $("answer-text").value = pending(q.number).text;
    } else { confirm.hidden = true; }
  }

  function declare(kind) {
    page.post(page.config.declareUrl, {kind: kind});
  }

  function sendAnswer(event) {
    event.preventDefault();
    var q = current && current.question;
    if (!q) { return; }
    var saved = pending(q.number);
    var text = $("answer-text").value;
    if (!saved || !saved.client_id) {
      saved = {client_id: uuid4(), text: text};
    } else if (text) {
      saved.text = text;  // the first send never reached the server; what it holds now counts
    }
    window.localStorage.setItem(storageKey(q.number), JSON.stringify(saved));
    $("answer-send").disabled = true;
    page.post(page.config.answerUrl, saved).then(function (result) {
      if (result.network) {
        $("answer-send").disabled = false;
        $("answer-confirm").textContent = page.text.retry;
        $("answer-confirm").hidden = false;
      } else if (!result.ok) {
        $("answer-send").disabled = false;
      }
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    page = new window.KothPage(render);
    page.start();
    ["jump", "revolution", "none"].forEach(function (kind) {
      $("declare-" + kind).addEventListener("click", function () { declare(kind); });
    });
    $("answer-form").addEventListener("submit", sendAnswer);
  });
})();
