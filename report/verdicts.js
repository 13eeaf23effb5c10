(function () {
'use strict';
// The page as evalmd agg --serve serves it: each answer drawn (page.js
// says so with an evalmd:answer event) gets buttons that override its
// grade, and a reason. The verdict goes to the server that served the
// page, with the token the server put here; the page shows it at once,
// and the server's rewrite of the outputs makes live.js reload the page,
// the leaderboard counting it. Text enters the page as text only.
var me = document.currentScript.dataset;
var nameKey = 'evalmd-reviewer';

function el(tag, attrs) {
  var e = document.createElement(tag);
  for (var k in attrs || {}) {
    if (k === 'text') e.textContent = attrs[k];
    else e.setAttribute(k, attrs[k]);
  }
  for (var i = 2; i < arguments.length; i++) e.append(arguments[i]);
  return e;
}

// The reviewer's name: the one this browser was given last, else the
// server's.
var who = el('input', {type: 'text', id: 'reviewer', autocomplete: 'name'});
try { who.value = localStorage.getItem(nameKey) || me.by; } catch (e) { who.value = me.by; }
who.addEventListener('change', function () {
  try { localStorage.setItem(nameKey, who.value.trim()); } catch (e) { /* private mode: the field still counts */ }
});
(document.querySelector('header .counts') || document.querySelector('header h1')).after(el('p', {class: 'reviewer'}, el('label', null, 'Reviewer ', who)));

var choices = me.accept === '1' ? ['right', 'wrong', 'accept'] : ['right', 'wrong'];
var titles = {right: 'the answer is right', wrong: 'the answer is wrong',
  accept: 'right, and the answer added to the sheet\u2019s accepted answers'};

// send posts the verdict v on answer a, and shows what came of it.
function send(a, v, reason, said, buttons) {
  buttons.forEach(function (b) { b.disabled = true; });
  said.className = 'said';
  said.textContent = 'saving\u2026';
  var headers = {'Content-Type': 'application/json'};
  headers[me.header] = me.token;
  fetch(me.url, {method: 'POST', headers: headers, cache: 'no-store', credentials: 'omit',
    body: JSON.stringify({file: a.f, index: a.ref.i, answer: a.ref.d, verdict: v, reason: reason, by: who.value.trim()})})
    .then(function (r) {
      return r.json().catch(function () { return {error: 'the server said ' + r.status}; })
        .then(function (reply) { return {ok: r.ok, reply: reply}; });
    })
    .then(function (res) {
      if (!res.ok) throw new Error(res.reply.error || 'refused');
      a.g = res.reply.g;
      a.rv = res.reply.rv;
      a.said = res.reply.sheet ? 'accepted into ' + res.reply.sheet : '';
      document.dispatchEvent(new CustomEvent('evalmd:render'));
    })
    .catch(function (err) {
      buttons.forEach(function (b) { b.disabled = false; });
      said.className = 'said error';
      said.textContent = 'Not saved: ' + err.message;
    });
}

document.addEventListener('evalmd:answer', function (e) {
  var a = e.detail.answer;
  if (!a.ref) return; // no verdict can name it
  var reason = el('input', {type: 'text', class: 'reason', placeholder: 'reason (optional)', 'aria-label': 'reason'});
  var said = el('span', {class: 'said', text: a.said || ''});
  var box = el('div', {class: 'override'}, 'Override: ');
  var buttons = choices.map(function (v) {
    var b = el('button', {type: 'button', 'data-verdict': v, title: titles[v], text: v});
    b.addEventListener('click', function () { send(a, v, reason.value.trim(), said, buttons); });
    return b;
  });
  buttons.forEach(function (b) { box.append(b); });
  box.append(reason, said);
  e.detail.card.append(box);
});
})();
