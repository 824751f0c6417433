/* The team phone: step, points, right, what the team may declare (the engine's answer, with
 * reasons), and its one answer per question. The answer's client_id is generated once per
 * question and kept in localStorage, so a resend after a network failure or a reload can
 * never create a second answer. */
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  var page;
  var current = null;  // the last state rendered
  var countdown = null;  // the host's answer countdown (countdown.js)

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

  function outcome(o) {
    var T = page.text;
    return T.step + " " + o.step + ", +" + o.points + (o.note ? " (" + page.reason(o.note) + ")" : "");
  }

  function projection(p) {
    if (!p) { return ""; }
    var T = page.text;
    return T.ifCorrect + ": " + outcome(p.correct) + " · " + T.ifWrong + ": " + outcome(p.incorrect);
  }

  function kindLabel(kind) {
    var T = page.text;
    return {ordinary: T.kindOrdinary, jump: T.kindJump, revolution: T.kindRevolution}[kind] || kind;
  }

  // The last closed question as this team played it: the verdict, the move and what it did.
  function renderLast(last) {
    var T = page.text, box = $("last-move");
    if (!last) { box.hidden = true; return; }
    box.hidden = false;
    box.dataset.verdict = last.correct ? "correct" : "incorrect";
    box.dataset.number = last.number;
    var said = last.answer === null ? T.silent :
      "«" + last.answer + "» — " + (last.correct ? T.correct : T.incorrect);
    $("last-verdict").textContent = T.question + " " + last.number + ": " + said;
    var b = last.before, a = last.after;
    $("last-detail").textContent = kindLabel(last.kind) + (last.partner ? " (" + T.partner + ")" : "") +
      ": " + T.step + " " + b.step + " → " + a.step + ", " + T.points + " " + b.points + " → " + a.points;
    var notes = [];
    if (last.ignored_reason) {
      notes.push(T.ignoredDecl + " " + kindLabel(last.declared) + " — " + page.reason(last.ignored_reason));
    }
    if (last.deposed) { notes.push(T.deposed); }
    if (last.crowned) { notes.push(T.crowned); }
    $("last-note").textContent = notes.join(" ");
    $("last-note").hidden = !notes.length;
  }

  // Under a question's row of the history, a row of its own across the table: the team's
  // appeal and the host's decision. In the answer's cell a sentence was squeezed to a word a
  // line and pushed the table sideways past a narrow phone (320-390 px), cutting it off.
  function appealRow(h, me) {
    var T = page.text, el = window.kothEl, a = (me.appeals || {})[String(h.number)];
    if (!a) { return null; }
    var said = {open: T.appealOpen, accepted: T.appealAccepted,
                rejected: T.appealRejected + " " + a.answer}[a.status];
    return el("tr", {class: "koth-appeal-row", "data-appeal-for": h.number}, [
      el("td", {colspan: 5}, [el("p", {class: "koth-appeal-state", "data-status": a.status, text: said})])
    ]);
  }

  // In the answer's cell of the question the team may still appeal (and answered): the
  // button that opens the appeal's form.
  function appealButton(h, me) {
    var T = page.text, el = window.kothEl;
    if ((me.appeals || {})[String(h.number)] || me.appeal_question !== h.number || h.answer === null) {
      return null;
    }
    var open = el("button", {type: "button", class: "secondary koth-appeal-open", text: T.appeal});
    open.addEventListener("click", function () {
      var form = $("appeal-form");
      form.dataset.number = h.number;
      $("appeal-label").textContent = T.question + " " + h.number + ": " + T.appealWhy;
      form.hidden = false;
      $("appeal-text").focus();
    });
    return open;
  }

  function renderHistory(history, me) {
    var T = page.text, el = window.kothEl;
    $("history-box").hidden = !history.length;
    var rows = [];
    history.forEach(function (h) {
      rows.push(el("tr", {"data-verdict": h.correct ? "correct" : "incorrect", "data-number": h.number}, [
        el("td", {text: String(h.number)}),
        el("td", {}, [document.createTextNode((h.answer === null ? T.noAnswer : h.answer) + " — " +
                                              (h.correct ? T.correct : T.incorrect)),
                      appealButton(h, me)]),
        el("td", {text: kindLabel(h.kind) + (h.ignored ? " *" : "")}),
        el("td", {text: h.king ? "♛" : String(h.step)}),
        el("td", {text: String(h.points)})
      ]));
      var appeal = appealRow(h, me);
      if (appeal) { rows.push(appeal); }
    });
    $("history").replaceChildren.apply($("history"), rows);
    // The window closed (the next question was closed) or the appeal went: the form goes too.
    var form = $("appeal-form");
    if (!form.hidden && (me.appeal_question !== Number(form.dataset.number) ||
                         (me.appeals || {})[form.dataset.number])) {
      form.hidden = true;
    }
  }

  function sendAppeal(event) {
    event.preventDefault();
    var form = $("appeal-form");
    $("appeal-send").disabled = true;
    page.post(page.config.appealUrl, {question: Number(form.dataset.number),
                                      text: $("appeal-text").value}).then(function (result) {
      $("appeal-send").disabled = false;
      // A refusal is said under the appeal's text, not at the top of the page.
      var refused = !result.ok && !result.network && result.data && result.data.detail;
      if (refused) { page.showError(""); }
      $("appeal-error").textContent = refused || "";
      $("appeal-error").hidden = !refused;
      if (result.ok) { $("appeal-text").value = ""; form.hidden = true; }
    });
  }

  function renderResult(state, me) {
    var T = page.text, board = state.board, done = board.finished;
    $("result-box").hidden = !done;
    document.body.dataset.finished = done ? "true" : "false";
    if (!done) { return; }
    $("result-winner").textContent = board.winner === me.team ? T.youWon : T.finished + " " + board.winner;
    $("result-me").textContent = T.placeWord + ": " + me.place + " · " + T.pointsWord + ": " + me.points;
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
      banner.hidden = true;  // the result card says it
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
    if (!countdown) {
      // at zero the answer closes here too, without waiting for a push
      countdown = new window.KothCountdown.Countdown($("countdown"), function () {
        if (current) { render(current); }
      });
    }
    countdown.set(phase === "answering" ? q.countdown : null);
    // The game's choice: after the countdown's end the server refuses answers unless it
    // takes them after zero; the phone says so at zero instead of letting the team send.
    var timeUp = phase === "answering" && countdown.over && !state.game.answers_after_zero;
    // the host revealed the last question: its answer under this team's verdict
    var shown = state.reveal, reveal = $("last-reveal");
    // While teams answer the question stands above the answer form; after the close its
    // answer goes under the declarations, which the next question needs first.
    var card = $("koth-shown"), after = !!(state.shown && !state.shown.question && state.shown.after);
    if (after && $("declare-box").nextElementSibling !== card) { $("declare-box").after(card); }
    if (!after && card.nextElementSibling !== $("answer-box")) { $("answer-box").before(card); }
    window.KothShown.render(card, state.shown);
    // the shown question's card says the answer already
    reveal.hidden = !(shown && shown.answer_key && me.last_move && me.last_move.number === shown.number) ||
      !!(state.shown && state.shown.after);
    reveal.textContent = reveal.hidden ? "" : T.revealAnswer + " " + shown.answer_key;

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
    var open = phase === "answering" && !answer && !timeUp;
    $("answer-text").disabled = !open;
    $("answer-send").disabled = !open;
    $("time-up").hidden = !(timeUp && !answer);
    $("time-up").textContent = timeUp && !answer ? T.timeUp : "";
    // Only a receipt here; the verdict is the last-move card's (red or green by the verdict).
    if (answer && phase !== "closed") {
      confirm.textContent = T.sent + " " + window.kothTime(answer.at) + ": «" + answer.text + "»";
      confirm.hidden = false;
      $("answer-text").value = "";
    } else if (q && pending(q.number) && open) {
      confirm.textContent = T.retry; confirm.hidden = false;
      $("answer-text").value = pending(q.number).text;
    } else { confirm.hidden = true; }
    renderLast(me.last_move || null);
    renderHistory(me.history || [], me);
    renderResult(state, me);
    // The boxes show once drawn (koth.css): nothing visible moves when the first state fills them.
    $("koth-play").dataset.ready = "true";
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
    $("appeal-form").addEventListener("submit", sendAppeal);
  });
})();
