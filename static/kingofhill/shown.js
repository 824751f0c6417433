/* A question as the server's state shows it on this screen (``state.shown``, already filtered
 * by the screen's rule): the open question's text and picture, or after the close the last
 * one with its accepted answer and how many teams got it. Shared by the projector and the
 * phones; the markup and texts are templates/kingofhill/_shown.html. */
(function (global) {
  "use strict";

  function format(text, values) {
    return String(text || "").replace(/\{(\w+)\}/g, function (all, key) {
      return values[key] != null ? String(values[key]) : all;
    });
  }

  function strings() {
    var node = global.document.getElementById("koth-shown-text");
    if (!node) { return {}; }
    try { return JSON.parse(node.textContent); } catch (e) { return {}; }
  }

  function render(box, shown) {
    if (!box) { return; }
    var T = box.__kothShownText || (box.__kothShownText = strings());
    shown = shown || {};
    var item = shown.question || shown.after || null;
    var after = !shown.question && !!shown.after;
    // a question announced without a text or a picture (read aloud) has nothing to show
    if (item && !item.text && !item.image && !(after && item.answer_key)) { item = null; after = false; }
    box.hidden = !item;
    box.setAttribute("data-number", item ? String(item.number) : "");
    box.setAttribute("data-stage", shown.question ? "question" : after ? "after" : "");
    var part = function (name) { return box.querySelector("[data-shown='" + name + "']"); };
    var text = part("text"), image = part("image"), answer = part("answer"), share = part("share");
    part("head").textContent = item ? format(T.question, {number: item.number}) : "";
    text.textContent = item && item.text ? item.text : "";
    text.hidden = !text.textContent;
    if (item && item.image) {
      // the same URL keeps the loaded picture: a push re-renders often
      if (image.getAttribute("src") !== item.image) { image.setAttribute("src", item.image); }
      image.hidden = false;
    } else {
      image.removeAttribute("src");
      image.hidden = true;
    }
    answer.textContent = after && item.answer_key ? format(T.answer, {answer: item.answer_key}) : "";
    answer.hidden = !answer.textContent;
    share.textContent = after && item.correct != null ?
      format(T.share, {correct: item.correct, total: item.total}) : "";
    share.hidden = !share.textContent;
  }

  global.KothShown = {render: render};
})(window);
